package export

import (
	"archive/zip"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
)

// directoryBytesPerEntry bounds the central-directory bytes zip.NewReader may
// read per allowed entry. Export entries have names under 200 bytes and a few
// dozen bytes of extra fields; 1 KiB leaves room and still caps the memory
// NewReader spends on a forged directory of millions of tiny entries.
const directoryBytesPerEntry = 1 << 10

// ratioFloor is the decompressed size below which the ratio cap is not
// applied: a small file cannot be a bomb, and tiny JSON files of repeated
// keys can legitimately compress very well.
const ratioFloor = 1 << 20

// errDirectoryTooLarge stops zip.NewReader once it has read more of the
// central directory than MaxEntries entries need.
var errDirectoryTooLarge = errors.New("central directory larger than the entry limit allows")

// budgetReaderAt is the io.ReaderAt given to zip.NewReader. While budget is
// positive every read spends from it; zip.NewReader reads the whole central
// directory and allocates a *zip.File per entry before returning, so the
// entry limit has to be enforced while it reads, not after.
type budgetReaderAt struct {
	r      io.ReaderAt
	budget int64 // < 0 once the directory has been read: no limit
}

func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.budget >= 0 {
		if int64(len(p)) > b.budget {
			return 0, errDirectoryTooLarge
		}
		b.budget -= int64(len(p))
	}
	return b.r.ReadAt(p, off)
}

// openArchive opens the ZIP and checks everything that can be checked
// without decompressing: size, entry count, names and file modes.
func openArchive(r io.ReaderAt, size int64, limits Limits) (*zip.Reader, error) {
	if size > limits.MaxZipBytes {
		return nil, fail(ErrTooLarge, "", fmt.Sprintf("The ZIP is larger than %d MB. Request only “Followers and following” in the export to keep it small.", limits.MaxZipBytes>>20), nil)
	}
	if size <= 0 {
		return nil, fail(ErrNotZip, "", "The upload is empty.", nil)
	}
	// The end-of-directory search reads up to 64 KiB + 1 KiB from the end.
	budget := &budgetReaderAt{r: r, budget: int64(limits.MaxEntries)*directoryBytesPerEntry + 128<<10}
	a, err := zip.NewReader(budget, size)
	budget.budget = -1
	switch {
	case errors.Is(err, errDirectoryTooLarge):
		return nil, tooManyEntries(limits, err)
	case errors.Is(err, zip.ErrInsecurePath):
		// Only returned when GODEBUG=zipinsecurepath=0; checkEntries below
		// catches the same names either way.
		return nil, fail(ErrUnsafePath, "", "The ZIP contains a file with an unsafe path, so it is not an Instagram export.", err)
	case err != nil:
		return nil, fail(ErrNotZip, "", "The upload is not a ZIP file. Upload the ZIP that Instagram e-mailed you, unchanged.", err)
	}
	// klauspost's inflate gives the same bytes as compress/flate (a test
	// reads the same export both ways) in about two thirds of the time, and
	// inflating is a large part of an import (docs/benchmarks.md §5).
	a.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	if len(a.File) > limits.MaxEntries {
		return nil, tooManyEntries(limits, nil)
	}
	if err := checkEntries(a.File); err != nil {
		return nil, err
	}
	return a, nil
}

func tooManyEntries(limits Limits, cause error) error {
	return fail(ErrTooLarge, "", fmt.Sprintf("The ZIP holds more than %d files. Request only “Followers and following” in the export.", limits.MaxEntries), cause)
}

// checkEntries refuses the archive if any entry could escape a folder if it
// were ever extracted, or is a symbolic link. Import never extracts, but an
// archive with such entries is not something Instagram made.
func checkEntries(files []*zip.File) error {
	for _, f := range files {
		if !safeName(f.Name) {
			return fail(ErrUnsafePath, f.Name, "The ZIP contains a file with an unsafe path, so it is not an Instagram export.", nil)
		}
		if f.Mode().Type()&^fs.ModeDir != 0 {
			// Anything but a regular file or a folder (symbolic links,
			// devices, pipes) is refused.
			return fail(ErrUnsafePath, f.Name, "The ZIP contains a link or special file, so it is not an Instagram export.", nil)
		}
	}
	return nil
}

// safeName reports whether name is a relative, forward-slash path that stays
// inside the archive's root.
func safeName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	if len(name) >= 2 && name[1] == ':' {
		return false // a Windows drive letter, "C:x"
	}
	for segment := range strings.SplitSeq(name, "/") {
		if segment == ".." {
			return false
		}
	}
	return true
}

// entryReader decompresses one file while enforcing the limits on the bytes
// actually produced. err keeps the first failure that came from below the
// JSON decoder (a limit, the context, a damaged archive), so a decode error
// can be told apart from the read error that caused it.
type entryReader struct {
	ctx      context.Context
	r        io.Reader
	read     int64
	maxEntry int64         // MaxEntryBytes
	maxRatio int64         // MaxRatio × compressed size
	total    *atomic.Int64 // shared by the files read at once
	maxTotal int64
	err      error
}

func (e *entryReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if err := e.ctx.Err(); err != nil {
		e.err = err
		return 0, err
	}
	// Ask for one byte more than any limit allows, so crossing it is seen
	// without decompressing much past it.
	room := min(e.maxEntry-e.read, e.maxTotal-e.total.Load(), max(e.maxRatio, ratioFloor)-e.read) + 1
	if int64(len(p)) > room {
		p = p[:max(room, 1)]
	}
	n, err := e.r.Read(p)
	e.read += int64(n)
	total := e.total.Add(int64(n))
	if e.read > e.maxEntry || total > e.maxTotal || (e.read > ratioFloor && e.read > e.maxRatio) {
		e.err = errLimit
		return 0, e.err
	}
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// bound is the most the entry can decompress to, all told, without
// crossing a limit.
func (e *entryReader) bound() int64 {
	return min(e.maxEntry, max(e.maxRatio, ratioFloor), e.read+e.maxTotal-e.total.Load())
}

// errLimit is entryReader's signal that a decompression limit was crossed.
var errLimit = errors.New("decompression limit crossed")

// openEntry opens f for reading within the limits; total is the running sum
// of bytes decompressed by this import.
func openEntry(ctx context.Context, f *zip.File, limits Limits, total *atomic.Int64) (*entryReader, io.Closer, error) {
	if f.Flags&0x1 != 0 {
		return nil, nil, fail(ErrNotZip, f.Name, "The ZIP is encrypted. Upload the ZIP that Instagram e-mailed you, unchanged.", nil)
	}
	if f.UncompressedSize64 > uint64(limits.MaxEntryBytes) {
		// The header can lie, so this is only a shortcut: entryReader
		// counts the real bytes.
		return nil, nil, bomb(f.Name, nil)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, fail(ErrNotZip, f.Name, "The ZIP is damaged or uses a compression Glimpse cannot read. Upload the ZIP that Instagram e-mailed you, unchanged.", err)
	}
	ratio := limits.MaxRatio * int64(max(f.CompressedSize64, 1))
	if f.CompressedSize64 > uint64(limits.MaxEntryBytes) || ratio/limits.MaxRatio != int64(max(f.CompressedSize64, 1)) {
		ratio = limits.MaxEntryBytes // no overflow; the entry cap binds first
	}
	return &entryReader{
		ctx: ctx, r: rc, maxEntry: limits.MaxEntryBytes, maxRatio: ratio,
		total: total, maxTotal: limits.MaxUncompressedBytes,
	}, rc, nil
}

func bomb(file string, cause error) error {
	return fail(ErrZipBomb, file, "A file in the ZIP expands to far more data than an Instagram export holds, so it was not read.", cause)
}

// errTimeout is the cause Import gives its own deadline, to tell it from the
// caller's.
var errTimeout = errors.New("import deadline passed")

// contextError is the error Import returns once ctx is done: ErrTimeout for
// Import's own deadline, the context's error for the caller's cancellation.
func contextError(ctx context.Context, limits Limits) error {
	if cause := context.Cause(ctx); errors.Is(cause, errTimeout) {
		return fail(ErrTimeout, "", fmt.Sprintf("Reading the export took longer than %s, so it was stopped. Request an export of “Followers and following” only, then upload that.", limits.Timeout), cause)
	}
	return fmt.Errorf("import export: %w", ctx.Err())
}

// readError turns the failure recorded by an entryReader into the error
// Import returns.
func readError(ctx context.Context, limits Limits, file string, err error) error {
	switch {
	case errors.Is(err, errLimit):
		return bomb(file, err)
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return contextError(ctx, limits)
	default:
		return fail(ErrNotZip, file, "The ZIP is damaged. Download the export again and upload it unchanged.", err)
	}
}

// readAhead hands on what src produces, read on a goroutine of its own up to
// aheadChunks chunks ahead of the decoder, so that on two cores inflating a
// file overlaps decoding it: inflating is about half the work of an import.
// The decoder sees the same bytes, and the same error after them, as it
// would reading src itself. src is read only by that goroutine until stop
// returns, so the byte counts it keeps need no lock.
type readAhead struct {
	ctx  context.Context
	full chan aheadChunk
	free chan []byte
	quit chan struct{}
	done chan struct{}
	buf  []byte // the chunk being handed on
	rest []byte // its bytes not yet handed on
	next error  // what Read returns once rest is empty
	// err is the first error other than io.EOF in a chunk the decoder has
	// been handed, or the context's once it is done: like entryReader.err,
	// it tells a failure below the decoder from a syntax error.
	err     error
	stopped bool
}

type aheadChunk struct {
	b   []byte
	err error
}

// The read-ahead holds aheadChunks buffers of aheadChunkBytes: enough to
// keep both sides busy, and little memory.
const (
	aheadChunks     = 3
	aheadChunkBytes = 64 << 10
)

func startReadAhead(ctx context.Context, src io.Reader) *readAhead {
	a := &readAhead{
		ctx: ctx, full: make(chan aheadChunk, aheadChunks), free: make(chan []byte, aheadChunks),
		quit: make(chan struct{}), done: make(chan struct{}),
	}
	for range aheadChunks {
		a.free <- make([]byte, aheadChunkBytes)
	}
	go a.run(src)
	return a
}

// run fills free buffers from src until src fails or ends, or stop is called.
func (a *readAhead) run(src io.Reader) {
	defer close(a.done)
	for {
		var b []byte
		select {
		case b = <-a.free:
		case <-a.quit:
			return
		}
		n := 0
		var err error
		for n < len(b) && err == nil {
			var k int
			k, err = src.Read(b[n:])
			n += k
		}
		select {
		case a.full <- aheadChunk{b[:n], err}:
		case <-a.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

func (a *readAhead) Read(p []byte) (int, error) {
	if a.next == nil {
		// Checked here too, so that the decoder stops as soon as the
		// context ends rather than after the chunks already read.
		if err := a.ctx.Err(); err != nil {
			a.rest, a.next = nil, err
			a.err = cmp.Or(a.err, err)
		}
	}
	for len(a.rest) == 0 {
		if a.next != nil {
			return 0, a.next
		}
		if a.buf != nil {
			a.free <- a.buf[:cap(a.buf)]
		}
		c := <-a.full
		a.buf, a.rest, a.next = c.b, c.b, c.err
		if c.err != nil && c.err != io.EOF {
			a.err = cmp.Or(a.err, c.err)
		}
	}
	n := copy(p, a.rest)
	a.rest = a.rest[n:]
	return n, nil
}

// stop ends the reading and waits for it, so that src may be closed.
func (a *readAhead) stop() {
	if !a.stopped {
		a.stopped = true
		close(a.quit)
		<-a.done
	}
}
