package judge

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	const key = "sk-proj-ABCDEFGHIJKLMNOP0123456789"
	r := newRedactor(key)
	for _, c := range []struct{ in, want string }{
		{"nothing secret here", "nothing secret here"},
		{"Incorrect API key provided: " + key + ".", "Incorrect API key provided: [redacted]."},
		{"Incorrect API key provided: " + key[:13] + "*****6789", "Incorrect API key provided: [redacted]*****6789"},
		{"the middle " + key[10:18] + " only", "the middle [redacted] only"},
		{"seven " + key[10:17] + " stays", "seven " + key[10:17] + " stays"},
		{key[:12] + "|" + key[20:], "[redacted]|[redacted]"},
		{key + key, "[redacted]"},
		{"end " + key[len(key)-8:], "end [redacted]"},
		{"", ""},
	} {
		if got := r.redact(c.in); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := newRedactor("short").redact("a short key, short"); got != "a [redacted] key, [redacted]" {
		t.Errorf("short key: %q", got)
	}
	if got := newRedactor("").redact("no key"); got != "no key" {
		t.Errorf("no key: %q", got)
	}
}

// FuzzRedact: no part of the key of minKeyPart bytes survives, and text
// without such a part is returned unchanged.
func FuzzRedact(f *testing.F) {
	f.Add("sk-test-SECRET-key-0123456789", "quote sk-test-SECRET and 0123456789")
	f.Fuzz(func(t *testing.T, key, s string) {
		got := newRedactor(key).redact(s)
		if len(key) < minKeyPart {
			if key != "" && strings.Contains(got, key) && !strings.Contains(redacted, key) {
				t.Fatalf("key %q survives in %q", key, got)
			}
			return
		}
		for i := 0; i+minKeyPart <= len(key); i++ {
			if p := key[i : i+minKeyPart]; strings.Contains(got, p) && !strings.Contains(redacted, p) {
				t.Fatalf("key %q: part %q survives in %q (from %q)", key, p, got, s)
			}
		}
		leaks := false
		for i := 0; i+minKeyPart <= len(key); i++ {
			leaks = leaks || strings.Contains(s, key[i:i+minKeyPart])
		}
		if !leaks && got != s {
			t.Fatalf("key %q: %q changed to %q with nothing to redact", key, s, got)
		}
	})
}
