// Package keyvalues reads the KEY:VAL items of upstream's array
// parameters: create-vm-from-template's templateParams and
// modify-vm-template's labels and annotations.
package keyvalues

import (
	"fmt"
	"strings"
)

// Separator separates an item's key from its value.
const Separator = ":"

// Parse reads KEY:VAL items as upstream does: the key is trimmed, the
// value is everything after the first colon, and an item with no colon
// continues the previous pair's value after a space, so that a value
// Tekton split into several arguments comes back whole. Empty items are
// skipped.
func Parse(items []string) (map[string]string, error) {
	result := make(map[string]string, len(items))
	lastKey := ""
	for _, item := range items {
		if item == "" {
			continue
		}
		key, value, found := strings.Cut(item, Separator)
		if !found {
			if lastKey == "" {
				return nil, noKeyError(item)
			}
			result[lastKey] += " " + item
			continue
		}
		key = strings.TrimSpace(key)
		if key == "" {
			return nil, noKeyError(item)
		}
		result[key] = value
		lastKey = key
	}
	return result, nil
}

func noKeyError(item string) error {
	return fmt.Errorf("no key found before \"%s\"; pair should be in \"KEY%sVAL\" format", item, Separator)
}
