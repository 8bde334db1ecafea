package generatesshkeys

import (
	"errors"
	"strings"
)

// splitShellWords splits s into words as a shell would, without
// expansions: blanks separate words, single quotes keep everything,
// double quotes keep everything but backslash escapes of \ " $ and `, and
// a backslash outside quotes keeps the next character. "-N ”" is thus
// -N with an empty passphrase.
func splitShellWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			word.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			n, err := readDoubleQuoted(s[i+1:], &word)
			if err != nil {
				return nil, err
			}
			i += n
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("backslash at the end")
			}
			i++
			word.WriteByte(s[i])
		default:
			word.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// readDoubleQuoted copies s up to its closing double quote into word and
// returns how many bytes it read, the quote included.
func readDoubleQuoted(s string, word *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0:
			i++
			word.WriteByte(s[i])
		default:
			word.WriteByte(c)
		}
	}
	return 0, errors.New("unterminated double quote")
}
