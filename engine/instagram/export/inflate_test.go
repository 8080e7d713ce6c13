package export

import (
	"archive/zip"
	"bytes"
	stdflate "compress/flate"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/flate"
)

// TestInflateMatchesTheStandardLibrary holds the archive's inflater
// (klauspost/compress, registered in openArchive) to compress/flate's output
// on export-shaped JSON at every compression level a phone or a zip tool
// might use, and on incompressible bytes.
func TestInflateMatchesTheStandardLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var list bytes.Buffer
	list.WriteString(`[`)
	for i := range 20000 {
		if i > 0 {
			list.WriteString(",\n  ")
		}
		fmt.Fprintf(&list, `{"title":"","media_list_data":[],"string_list_data":[{"href":"https://www.instagram.com/user_%x","value":"user_%x","timestamp":%d}]}`,
			rng.Uint64(), rng.Uint64(), 1600000000+rng.IntN(1e8))
	}
	list.WriteString(`]`)
	noise := make([]byte, 1<<20)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for _, level := range []int{stdflate.NoCompression, stdflate.BestSpeed, stdflate.DefaultCompression, stdflate.BestCompression} {
		for name, content := range map[string][]byte{"list": list.Bytes(), "noise": noise} {
			var archive bytes.Buffer
			w := zip.NewWriter(&archive)
			w.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) { return stdflate.NewWriter(out, level) })
			f, err := w.Create("connections/followers_and_following/followers_1.json")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(content); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			read := func(decompressor zip.Decompressor) []byte {
				r, err := zip.NewReader(bytes.NewReader(archive.Bytes()), int64(archive.Len()))
				if err != nil {
					t.Fatal(err)
				}
				r.RegisterDecompressor(zip.Deflate, decompressor)
				rc, err := r.File[0].Open()
				if err != nil {
					t.Fatal(err)
				}
				defer rc.Close()
				b, err := io.ReadAll(rc) // the zip reader checks the CRC-32 at the end
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			std := read(func(r io.Reader) io.ReadCloser { return stdflate.NewReader(r) })
			fast := read(func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
			if !bytes.Equal(std, fast) || !bytes.Equal(fast, content) {
				t.Errorf("%s at level %d: the inflaters disagree (%d and %d bytes of %d)", name, level, len(std), len(fast), len(content))
			}
		}
	}
}
