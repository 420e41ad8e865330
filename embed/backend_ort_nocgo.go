//go:build !cgo

package embed

import "fmt"

// ortAvailable reports whether this build has the ORT backend (cgo).
const ortAvailable = false

func openORT(opts Options, info *ModelInfo) (backend, error) {
	return nil, fmt.Errorf("%w: this aem binary was built without cgo, so the ORT backend is unavailable; use --backend go or a cgo build", ErrORTLibrary)
}
