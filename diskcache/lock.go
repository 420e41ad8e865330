package diskcache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// lockRetry is how often Open tries the lock again while another process
// holds it.
const lockRetry = 50 * time.Millisecond

// lockDir takes the cache directory's lock (an exclusive flock on its lock
// file), waiting up to o.LockTimeout (0: forever). The lock is held by an
// open file, so it ends with the process, whatever kills it. The holder
// writes its pid into the file, for the message another process gives.
func lockDir(dir string, o Options) (*flock.Flock, error) {
	path := filepath.Join(dir, lockName)
	lk := flock.New(path, flock.SetPermissions(0o644))
	ctx := context.Background()
	if o.LockTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.LockTimeout)
		defer cancel()
	}
	ok, err := lk.TryLockContext(ctx, lockRetry)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("locking the cache %s: %w", dir, err)
	}
	if !ok {
		holder := "another aem process"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				holder += fmt.Sprintf(" (pid %d)", pid)
			}
		}
		return nil, fmt.Errorf("%w: %s is held by %s (waited %v); wait for it, or give this run its own cache directory",
			ErrLocked, dir, holder, o.LockTimeout)
	}
	// Best effort: a read-only directory keeps the lock without the pid.
	_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	return lk, nil
}
