package longtest

import "testing"

func TestEnabled(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{{"1", true}, {"", false}, {"0", false}, {"yes", false}} {
		t.Setenv(Env, tt.value)
		if got := Enabled(); got != tt.want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Env, tt.value, got, tt.want)
		}
	}
}

func TestRequireSkips(t *testing.T) {
	t.Setenv(Env, "")
	skipped := true
	t.Run("short form", func(t *testing.T) {
		Require(t, "a check")
		skipped = false
	})
	if !skipped {
		t.Error("Require did not skip without " + Env)
	}
	t.Setenv(Env, "1")
	ran := false
	t.Run("long form", func(t *testing.T) {
		Require(t, "a check")
		ran = true
	})
	if !ran {
		t.Error("Require skipped with " + Env + "=1")
	}
}
