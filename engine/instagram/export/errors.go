package export

import (
	"errors"
	"fmt"

	"glimpse/engine"
)

// The failure classes of an import, for errors.Is. Import returns an
// *engine.Error (code invalid) whose Message is safe to show a person and
// whose chain holds exactly one of these.
var (
	// ErrNotZip means the upload is not a readable ZIP archive: not a ZIP at
	// all, damaged, encrypted, or compressed with a method Go cannot read.
	ErrNotZip = errors.New("export: not a readable ZIP archive")
	// ErrTooLarge means the archive itself is over MaxZipBytes or holds more
	// than MaxEntries files.
	ErrTooLarge = errors.New("export: archive too large")
	// ErrZipBomb means a file decompressed past MaxEntryBytes, past
	// MaxRatio times its compressed size, or the files read together past
	// MaxUncompressedBytes. Bytes are counted as they are decompressed; the
	// sizes in the headers are not trusted.
	ErrZipBomb = errors.New("export: archive expands too much")
	// ErrUnsafePath means an entry's name is absolute, climbs out with "..",
	// holds a backslash or NUL, or the entry is a symbolic link. Instagram
	// never writes such entries, so the whole upload is refused rather than
	// the entry skipped: the file is not what it claims to be.
	ErrUnsafePath = errors.New("export: unsafe path in archive")
	// ErrMalformedJSON means a file Import needs is not valid JSON, or not a
	// JSON shape any export uses. The *engine.Error's Message names the file.
	ErrMalformedJSON = errors.New("export: malformed JSON")
	// ErrNoConnections means the archive has neither a followers nor a
	// following file in JSON: the user left out "Followers and following",
	// or chose the HTML format (§4.1).
	ErrNoConnections = errors.New("export: no followers or following")
	// ErrTimeout means reading the archive took longer than
	// Limits.Timeout. A cancellation by the caller is not this error: Import
	// then returns the context's own error.
	ErrTimeout = errors.New("export: import took too long")
)

// fail builds the error Import returns: message is shown to the person, kind
// is the sentinel for errors.Is, file and cause are for the logs.
func fail(kind error, file, message string, cause error) error {
	err := kind
	switch {
	case file != "" && cause != nil:
		err = fmt.Errorf("%w: %s: %w", kind, file, cause)
	case file != "":
		err = fmt.Errorf("%w: %s", kind, file)
	case cause != nil:
		err = fmt.Errorf("%w: %w", kind, cause)
	}
	return &engine.Error{Code: engine.CodeInvalid, Message: message, Err: err}
}
