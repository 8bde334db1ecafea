// Package shellwords splits an option string into words the way a POSIX
// shell would, without expanding anything: the Tasks take their extra
// command-line options (additionalVirtOptions, additional-ssh-options) as
// one string, as upstream does.
package shellwords

import (
	"fmt"
	"strings"
)

// splitter walks the input once, building the current word.
type splitter struct {
	in      []rune
	pos     int
	words   []string
	word    strings.Builder
	inWord  bool
	quoteAt int
}

// Split returns the words of s: blanks separate words, single quotes keep
// everything literally, double quotes keep everything but a backslash
// before $ ` " \ or a newline, a backslash outside quotes keeps the next
// character, and # at the start of a word comments out the rest of the
// line. An unclosed quote or a trailing backslash is an error.
func Split(s string) ([]string, error) {
	sp := &splitter{in: []rune(s)}
	for sp.pos < len(sp.in) {
		if err := sp.step(); err != nil {
			return nil, err
		}
	}
	sp.endWord()
	return sp.words, nil
}

func (sp *splitter) step() error {
	c := sp.in[sp.pos]
	sp.pos++
	switch {
	case c == ' ' || c == '\t' || c == '\n':
		sp.endWord()
	case c == '#' && !sp.inWord:
		sp.skipComment()
	case c == '\\':
		return sp.escape()
	case c == '\'':
		return sp.single()
	case c == '"':
		return sp.double()
	default:
		sp.add(c)
	}
	return nil
}

func (sp *splitter) add(c rune) {
	sp.word.WriteRune(c)
	sp.inWord = true
}

func (sp *splitter) endWord() {
	if sp.inWord {
		sp.words = append(sp.words, sp.word.String())
	}
	sp.word.Reset()
	sp.inWord = false
}

func (sp *splitter) skipComment() {
	for sp.pos < len(sp.in) && sp.in[sp.pos] != '\n' {
		sp.pos++
	}
}

func (sp *splitter) escape() error {
	if sp.pos == len(sp.in) {
		return fmt.Errorf("unbalanced quotes: a backslash ends %q with nothing to escape", string(sp.in))
	}
	c := sp.in[sp.pos]
	sp.pos++
	if c != '\n' { // backslash-newline joins lines
		sp.add(c)
	}
	return nil
}

func (sp *splitter) single() error {
	sp.quoteAt = sp.pos - 1
	sp.inWord = true
	for sp.pos < len(sp.in) {
		c := sp.in[sp.pos]
		sp.pos++
		if c == '\'' {
			return nil
		}
		sp.word.WriteRune(c)
	}
	return sp.unclosed('\'')
}

func (sp *splitter) double() error {
	sp.quoteAt = sp.pos - 1
	sp.inWord = true
	for sp.pos < len(sp.in) {
		c := sp.in[sp.pos]
		sp.pos++
		switch {
		case c == '"':
			return nil
		case c == '\\' && sp.pos < len(sp.in) && strings.ContainsRune("$`\"\\\n", sp.in[sp.pos]):
			if sp.in[sp.pos] != '\n' {
				sp.word.WriteRune(sp.in[sp.pos])
			}
			sp.pos++
		default:
			sp.word.WriteRune(c)
		}
	}
	return sp.unclosed('"')
}

func (sp *splitter) unclosed(q rune) error {
	return fmt.Errorf("unbalanced quotes: the %c at offset %d of %q is never closed", q, sp.quoteAt, string(sp.in))
}
