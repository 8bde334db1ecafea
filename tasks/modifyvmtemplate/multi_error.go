package modifyvmtemplate

import "strings"

// multiError reports several bad parameters at once, as upstream's does:
// one line per error added, each the last error added under its key.
type multiError struct {
	keys []string
	errs map[string]error
}

// add records err under key; a nil err is not recorded.
func (m *multiError) add(key string, err error) {
	if err == nil {
		return
	}
	if m.errs == nil {
		m.errs = map[string]error{}
	}
	m.keys = append(m.keys, key)
	m.errs[key] = err
}

// orNil is m when it holds an error, else nil.
func (m *multiError) orNil() error {
	if len(m.keys) == 0 {
		return nil
	}
	return m
}

// Error is one line per error.
func (m *multiError) Error() string {
	lines := make([]string, 0, len(m.keys))
	for _, k := range m.keys {
		if msg := strings.TrimSuffix(m.errs[k].Error(), "\n"); msg != "" {
			lines = append(lines, msg)
		}
	}
	return strings.Join(lines, "\n")
}
