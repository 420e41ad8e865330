package judge

import "strings"

// minKeyPart is the shortest part of the API key that is redacted: an
// endpoint that quotes a bad key often quotes only its start ("sk-proj-
// abc...xyz"), and a model may echo any piece of it.
const minKeyPart = 8

// redactor removes every part of the key of minKeyPart bytes or more from
// text: any run of text made of the key's minKeyPart-byte pieces is
// replaced, so a piece quoted anywhere (start, middle, end, or the whole
// key) never reaches a message, a row or the cache. A key shorter than
// minKeyPart is removed where it appears whole.
type redactor struct {
	key    string
	pieces map[string]bool // every minKeyPart-byte substring of key
}

func newRedactor(key string) redactor {
	r := redactor{key: key}
	if len(key) >= minKeyPart {
		r.pieces = make(map[string]bool, len(key)-minKeyPart+1)
		for i := 0; i+minKeyPart <= len(key); i++ {
			r.pieces[key[i:i+minKeyPart]] = true
		}
	}
	return r
}

// redacted is what replaces a part of the key.
const redacted = "[redacted]"

// redact returns s with every part of the key replaced by [redacted].
func (r redactor) redact(s string) string {
	switch {
	case r.key == "":
		return s
	case r.pieces == nil:
		return strings.ReplaceAll(s, r.key, redacted)
	}
	var b strings.Builder
	written, covered := 0, -1 // s[:written] is handled; a redacted run ends at covered
	for i := 0; i+minKeyPart <= len(s); i++ {
		if !r.pieces[s[i:i+minKeyPart]] {
			continue
		}
		if i > covered { // a new run: the text before it, then the mark
			b.WriteString(s[written:i])
			b.WriteString(redacted)
		}
		covered = i + minKeyPart
		written = covered
	}
	if covered < 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}
