package export

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// failingReader hands out data in pieces of n bytes, then err.
type failingReader struct {
	data []byte
	n    int
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	k := copy(p[:min(len(p), f.n)], f.data)
	f.data = f.data[k:]
	return k, nil
}

// TestReadAheadHandsOnTheSameBytes: whatever the sizes of the reads on
// either side, the decoder gets every byte in order and then the source's
// error, which err records unless it is io.EOF.
func TestReadAheadHandsOnTheSameBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3*aheadChunkBytes+12345)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	damaged := errors.New("damaged")
	for _, srcErr := range []error{io.EOF, damaged} {
		for _, n := range []int{1, 1000, aheadChunkBytes, 1 << 20} {
			a := startReadAhead(context.Background(), &failingReader{data: data, n: n, err: srcErr})
			var got []byte
			p := make([]byte, 777)
			var err error
			for err == nil {
				var k int
				k, err = a.Read(p)
				got = append(got, p[:k]...)
			}
			a.stop()
			if !bytes.Equal(got, data) || err != srcErr {
				t.Fatalf("source reads of %d, %v: got %d bytes (equal %v), then %v", n, srcErr, len(got), bytes.Equal(got, data), err)
			}
			if want := map[bool]error{true: nil, false: damaged}[srcErr == io.EOF]; a.err != want {
				t.Errorf("source reads of %d, %v: err = %v, want %v", n, srcErr, a.err, want)
			}
			// Once ended it stays ended.
			if k, again := a.Read(p); k != 0 || again != srcErr {
				t.Errorf("read after the end: %d, %v", k, again)
			}
		}
	}
}

// endless is a reader that never ends, counting what it hands out.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadAheadStops: a decoder may stop before the end; stop then ends the
// reading with at most the chunks ahead read, and a cancelled context stops
// the decoder at its next read.
func TestReadAheadStops(t *testing.T) {
	t.Parallel()
	src := &endless{}
	ctx, cancel := context.WithCancel(context.Background())
	a := startReadAhead(ctx, src)
	p := make([]byte, 100)
	if _, err := a.Read(p); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := a.Read(p); !errors.Is(err, context.Canceled) || !errors.Is(a.err, context.Canceled) {
		t.Fatalf("after cancel: %v, err %v", err, a.err)
	}
	a.stop()
	a.stop() // a second stop is harmless
	if limit := int64((aheadChunks + 2) * aheadChunkBytes); src.n > limit {
		t.Errorf("read %d bytes ahead, want at most %d", src.n, limit)
	}
}
