package export_test

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"syscall"
	"testing"
	"time"

	"glimpse/engine/instagram/export"
)

// benchEntries is the length of each list in BenchmarkImport1M.
const benchEntries = 1_000_000

// writeBenchExport writes an export ZIP in the 2025 layout with n followers
// (Form 1, /_u/ hrefs) and n following (Form 2, username only in title) to
// path. Usernames are random letters plus a base-36 counter, so they are
// distinct and compress like real ones.
func writeBenchExport(tb testing.TB, path string, n int) {
	tb.Helper()
	out, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	zw := zip.NewWriter(out)
	r := rand.New(rand.NewPCG(2026, 5))
	name := func(i int) string {
		letters := make([]byte, 0, 24)
		for range 4 + r.IntN(8) {
			letters = append(letters, byte('a'+r.IntN(26)))
		}
		return string(letters) + "." + strconv.FormatInt(int64(i), 36)
	}
	write := func(file, open, close string, item func(i int) string) {
		f, err := zw.Create("connections/followers_and_following/" + file)
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<16)
		w.WriteString(open)
		for i := range n {
			if i > 0 {
				w.WriteString(",\n")
			}
			w.WriteString(item(i))
		}
		w.WriteString(close)
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
	}
	write("followers_1.json", "[\n", "\n]\n", func(i int) string {
		u := name(i)
		return fmt.Sprintf(`  {"title": "", "media_list_data": [], "string_list_data": [{"href": "https://www.instagram.com/_u/%s", "value": "%s", "timestamp": %d}]}`, u, u, 1_500_000_000+i*100)
	})
	write("following.json", "{\"relationships_following\": [\n", "\n]}\n", func(i int) string {
		u := name(i + n/2)
		return fmt.Sprintf(`  {"title": "%s", "string_list_data": [{"href": "https://www.instagram.com/_u/%s", "timestamp": %d}]}`, u, u, 1_500_000_000+i*100)
	})
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkImport1M imports an export of 1,000,000 followers and 1,000,000
// following from a ZIP file on disk. Besides time it reports the CPU time
// per import and two measures of memory: peak-heap-MiB, the most the heap
// held at once during an import (sampled every millisecond; the previous
// import's result is collected before each), and maxrss-MiB, the process's
// peak resident memory, which is the import's own with -benchtime 1x
// (writing the ZIP first takes a few MiB).
//
//	go test -run '^$' -bench Import1M -benchmem -benchtime 3x ./engine/instagram/export/
func BenchmarkImport1M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "export.zip")
	writeBenchExport(b, path, benchEntries)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	// CPU time, unlike wall time, means something on a shared machine.
	usage := func() syscall.Rusage {
		var u syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
			b.Fatal(err)
		}
		return u
	}
	cpu := func() time.Duration {
		u := usage()
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	var cpuTotal time.Duration
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		stop := watchHeap()
		began := cpu()
		b.StartTimer()
		got, err := export.ImportFile(context.Background(), path, export.Limits{})
		b.StopTimer()
		cpuTotal += cpu() - began
		peak = max(peak, stop())
		if err != nil {
			b.Fatal(err)
		}
		if len(got.Followers) != benchEntries || len(got.Following) != benchEntries || got.Range != nil {
			b.Fatalf("got %d followers, %d following, range %v", len(got.Followers), len(got.Following), got.Range)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpuTotal)/float64(b.N)/1e9, "cpu-s/op")
	b.ReportMetric(float64(info.Size())/(1<<20), "zip-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(usage().Maxrss)/(1<<10), "maxrss-MiB") // Linux counts Maxrss in KiB
}

// watchHeap samples the bytes of heap objects, live or not yet swept, every
// millisecond until the returned function is called, which returns the
// highest sample.
func watchHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	done, peakCh := make(chan struct{}), make(chan uint64)
	go func() {
		peak := read()
		ticker := time.NewTicker(time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				peakCh <- max(peak, read())
				return
			case <-ticker.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-peakCh
	}
}
