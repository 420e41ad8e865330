package main

import (
	"testing"
	"time"
)

func TestParseByteSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2GB", 2e9, true}, {"500MiB", 500 << 20, true}, {"500 mib", 500 << 20, true}, {"1.5GiB", 3 << 29, true},
		{"1024", 1024, true}, {"10B", 10, true}, {"0", 0, true},
		{"", 0, false}, {"GB", 0, false}, {"2XB", 0, false}, {"-1GB", 0, false}, {"1e30TB", 0, false}, {"2 G B", 0, false},
	} {
		got, err := parseByteSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseAge(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * 24 * time.Hour, true}, {"0.5d", 12 * time.Hour, true}, {"12h", 12 * time.Hour, true}, {"90m", 90 * time.Minute, true},
		{"", 0, false}, {"0d", 0, false}, {"-3d", 0, false}, {"3 weeks", 0, false}, {"0s", 0, false}, {"d", 0, false},
	} {
		got, err := parseAge(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 1536: "1.5 KiB", 717 << 20: "717 MiB", 8 << 30: "8 GiB", 65<<20 + 100<<10: "65.1 MiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
