package templateprocess

import (
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
)

// The character sets of library-go's expression generator. Their order
// matters: a range such as a-z is cut out of asciiChars by position, so a
// different order would draw different characters for the same seed.
const (
	alphabetChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	numeralChars  = "0123456789"
	symbolChars   = "~!@#$%^&*()-_+={}[]\\|<,>.?/\"';:`"
	asciiChars    = alphabetChars + numeralChars + symbolChars
)

// The patterns are library-go's own: which `from` strings expand, and how,
// is defined by them, quirks included.
var (
	// constructExp finds one "[ranges]{count}" construct.
	constructExp = regexp.MustCompile(`\[([a-zA-Z0-9\-\\]+)\](\{([0-9]+)\})`)
	// rangeExp splits the ranges into pairs (a-z), single characters and
	// classes (\w, \d, \a, \A).
	rangeExp = regexp.MustCompile(`([\\]?[a-zA-Z0-9]\-?[a-zA-Z0-9]?)`)
	// syntaxExp is the syntax check applied to the bracketed ranges.
	syntaxExp = regexp.MustCompile(`\[(\\w|\\d|\\a|\\A)|([a-zA-Z0-9]\-[a-zA-Z0-9])+\]`)
)

// maxCount is the most characters one construct may generate.
const maxCount = 255

// GenerateValue expands a `generate: expression` parameter's `from`, as
// library-go's ExpressionValueGenerator does: each "[ranges]{count}"
// construct, left to right, becomes count characters drawn with
// random.Intn from the ranges' characters; everything else is kept. Ranges
// are pairs such as a-z, single characters, and the classes \w (letters,
// digits, "_"), \d (digits), \a (letters and digits) and \A (symbols).
//
// Upstream's quirks are kept so that a seed gives upstream's value: a pair
// x-y excludes y ("[a-z]" never yields "z", "[0-9]" never "9"), and
// duplicate characters are dropped in upstream's order. The error texts are
// upstream's, misspelling included. Where upstream panics (a construct
// with no characters to draw from, such as "[a-a]{3}"), an error is
// returned instead.
func GenerateValue(from string, random *rand.Rand) (string, error) {
	value := from
	for {
		loc := constructExp.FindStringIndex(value)
		if loc == nil {
			return value, nil
		}
		construct := value[loc[0]:loc[1]]
		ranges, count, err := parseConstruct(construct)
		if err != nil {
			return "", err
		}
		chars, err := charset(ranges)
		if err != nil {
			return "", err
		}
		if len(chars) == 0 {
			return "", fmt.Errorf("no characters to generate from in %s", ranges)
		}
		drawn := make([]byte, count)
		for i := range drawn {
			drawn[i] = chars[random.Intn(len(chars))]
		}
		// Upstream replaces the first occurrence of the construct's text,
		// which is the construct just found: it is the leftmost match.
		value = strings.Replace(value, construct, string(drawn), 1)
	}
}

// parseConstruct splits "[ranges]{count}" into "[ranges]" and count,
// checking both as upstream does.
func parseConstruct(construct string) (string, int, error) {
	brace := strings.LastIndex(construct, "{")
	ranges := construct[:brace]
	if !syntaxExp.MatchString(ranges) {
		// "expresion" is upstream's spelling; scripts match on it.
		return "", 0, fmt.Errorf("malformed expresion syntax: %s", ranges)
	}
	// The digits are checked by constructExp; an out-of-range number is
	// reported with the value Atoi gives, as upstream does.
	count, _ := strconv.Atoi(construct[brace+1 : len(construct)-1])
	if count < 1 || count > maxCount {
		return "", 0, fmt.Errorf("range must be within [1-255] characters (%d)", count)
	}
	return ranges, count, nil
}

// charset is the characters the ranges allow, in upstream's order.
func charset(ranges string) (string, error) {
	var chars string
	for _, r := range rangeExp.FindAllString(ranges, -1) {
		first, last := r[0], r[len(r)-1]
		switch string([]byte{first, last}) {
		case `\w`:
			chars += alphabetChars + numeralChars + "_"
		case `\d`:
			chars += numeralChars
		case `\a`:
			chars += alphabetChars + numeralChars
		case `\A`:
			chars += symbolChars
		default:
			span, err := asciiSpan(first, last)
			if err != nil {
				return "", err
			}
			chars += span
		}
	}
	return dropDuplicates(chars), nil
}

// asciiSpan is the part of asciiChars from first up to, but not including,
// last: upstream's slice bound leaves the last character out.
func asciiSpan(first, last byte) (string, error) {
	from := strings.IndexByte(asciiChars, first)
	to := strings.LastIndexByte(asciiChars, last)
	if from > to {
		return "", fmt.Errorf("invalid range specified: %c-%c", first, last)
	}
	return asciiChars[from:to], nil
}

// dropDuplicates removes repeated characters the way upstream does: a
// repeat is overwritten by the current last character and the string
// shortened, so the surviving order, and with it the character a random
// index picks, is upstream's.
func dropDuplicates(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		for j := i + 1; j < len(b); j++ {
			if b[i] == b[j] {
				b[j] = b[len(b)-1]
				b = b[:len(b)-1]
				j--
			}
		}
	}
	return string(b)
}
