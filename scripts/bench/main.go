// Command bench is the HTTP half of `make bench` (docs/benchmarks.md §3). It
// starts the real binary as README says (`GLIMPSE_DEMO=1 bin/glimpse serve`,
// default info logging, into a file), signs in the demo subscriber as the
// renderer does, and starts the bare Fiber JSON baseline (bin/barejson) the
// same way, as a process of its own. Then it drives both on loopback with the
// same load generator, in interleaved rounds, sending a browser's
// Accept-Encoding, and prints requests/s, p50 and p99 and the ratios (medians
// over the rounds).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"glimpse/scripts/serverproc"

	"github.com/valyala/fasthttp"
)

const (
	demoEmail    = "demo@example.com"
	demoPassword = "glimpse-demo"
	// browserEncoding is what Chromium and Firefox send.
	browserEncoding = "gzip, deflate, br"
)

func main() {
	bin := flag.String("bin", "bin/glimpse", "the glimpse binary")
	bare := flag.String("bare", "bin/barejson", "the bare Fiber JSON baseline")
	conns := flag.Int("conns", 64, "connections kept busy")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	round := flag.Duration("round", 4*time.Second, "length of one round")
	profile := flag.String("cpuprofile", "", "write a CPU profile of glimpse during the first screen round here (GLIMPSE_PPROF_ADDR)")
	flag.Parse()
	if err := run(*bin, *bare, *conns, *rounds, *round, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(bin, bare string, conns, rounds int, round time.Duration, profile string) error {
	dir, err := os.MkdirTemp("", "glimpse-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	appAddr, bareAddr, pprofAddr := serverproc.FreeAddr(), serverproc.FreeAddr(), ""
	// Development: the sandbox and the fictional operator, as make run.
	env := []string{"GLIMPSE_ADDR=" + appAddr, "GLIMPSE_DATA_DIR=" + filepath.Join(dir, "data"), "GLIMPSE_DEMO=1",
		"GLIMPSE_ENVIRONMENT=development"}
	if profile != "" {
		pprofAddr = serverproc.FreeAddr()
		env = append(env, "GLIMPSE_PPROF_ADDR="+pprofAddr)
	}
	app, err := serverproc.Start(bin, filepath.Join(dir, "glimpse.log"), env, "serve")
	if err != nil {
		return err
	}
	defer app.Stop(15 * time.Second)
	baseline, err := serverproc.Start(bare, filepath.Join(dir, "bare.log"), nil, bareAddr)
	if err != nil {
		return err
	}
	defer baseline.Stop(15 * time.Second)
	if err := serverproc.WaitReady("http://"+appAddr+"/readyz", 90*time.Second, 100*time.Millisecond); err != nil {
		return fmt.Errorf("glimpse: %w (log in %s)", err, app.Log)
	}
	if err := serverproc.WaitReady("http://"+bareAddr+"/bare", 10*time.Second, 100*time.Millisecond); err != nil {
		return fmt.Errorf("bare: %w", err)
	}
	cookies, err := signIn("http://" + appAddr)
	if err != nil {
		return err
	}

	screen := func(req *fasthttp.Request) {
		req.SetRequestURI("http://" + appAddr + "/ui/screen?path=%2Fdashboard")
		req.Header.Set("Cookie", cookies)
		req.Header.Set("X-SDUI-Version", "1")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Accept-Encoding", browserEncoding)
	}
	bareReq := func(req *fasthttp.Request) {
		req.SetRequestURI("http://" + bareAddr + "/bare")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Accept-Encoding", browserEncoding)
	}
	// What the screen answers, once, so a regression to a redirect or an
	// uncompressed body shows.
	enc, size, err := probe(screen)
	if err != nil {
		return err
	}

	// Warm both (caches, connections) before measuring.
	drive(appAddr, conns, time.Second, screen)
	drive(bareAddr, conns, time.Second, bareReq)
	var bs, ss []stats
	for i := 0; i < rounds; i++ {
		bs = append(bs, measureCPU(baseline, func() stats { return drive(bareAddr, conns, round, bareReq) }))
		var profiled chan error
		if i == 0 && pprofAddr != "" {
			profiled = make(chan error, 1)
			go func() { profiled <- fetchProfile(pprofAddr, round-time.Second, profile) }()
		}
		ss = append(ss, measureCPU(app, func() stats { return drive(appAddr, conns, round, screen) }))
		if profiled != nil {
			if err := <-profiled; err != nil {
				return fmt.Errorf("cpu profile: %w", err)
			}
		}
	}
	b, s := median(bs), median(ss)
	if b.errors > 0 || s.errors > 0 {
		return fmt.Errorf("errors under load: screen %d, bare %d", s.errors, b.errors)
	}
	fmt.Printf("bench: real bin/glimpse (GLIMPSE_DEMO=1, info logging to a file) vs bin/barejson;\n")
	fmt.Printf("  %d connections, %d interleaved rounds of %s (medians), Accept-Encoding: %s\n", conns, rounds, round, browserEncoding)
	fmt.Printf("  bare fiber 1 KB JSON:        %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms\n", b.rps, ms(b.p50), ms(b.p99))
	fmt.Printf("  /ui/screen?path=/dashboard:  %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%s, %d bytes)\n",
		s.rps, ms(s.p50), ms(s.p99), enc, size)
	fmt.Printf("  ratio screen/bare req/s:     %8.2f\n", s.rps/b.rps)
	fmt.Printf("  ratio screen/bare p99:       %8.2f\n", float64(s.p99)/float64(b.p99))
	if b.cpuPerRequest > 0 && s.cpuPerRequest > 0 {
		// The server's own CPU time per request, which other load on the
		// machine changes far less than it changes req/s.
		fmt.Printf("  server CPU per request:      bare %.1f µs, screen %.1f µs (%.2f×)\n",
			us(b.cpuPerRequest), us(s.cpuPerRequest), float64(s.cpuPerRequest)/float64(b.cpuPerRequest))
	}
	return nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// measureCPU runs one round and adds the CPU time p spent per request in it,
// from /proc (Linux; elsewhere the figure is left out).
func measureCPU(p *serverproc.Process, round func() stats) stats {
	before, err := cpuTime(p.Cmd.Process.Pid)
	st := round()
	after, err2 := cpuTime(p.Cmd.Process.Pid)
	if err == nil && err2 == nil && st.requests > 0 {
		st.cpuPerRequest = (after - before) / time.Duration(st.requests)
	}
	return st
}

// cpuTime is the user and system time of process pid and all its threads:
// fields 14 and 15 of /proc/<pid>/stat, in USER_HZ ticks (100 per second on
// Linux, whatever the kernel's own tick; see proc(5)).
func cpuTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; the fields after it start
	// past its closing parenthesis.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc stat")
	}
	fields := strings.Fields(string(raw[i+1:]))
	if len(fields) < 13 {
		return 0, errors.New("unexpected /proc stat")
	}
	var utime, stime int64
	if _, err := fmt.Sscan(fields[11], &utime); err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(fields[12], &stime); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * (time.Second / 100), nil
}

// fetchProfile writes a CPU profile of d from glimpse's pprof listener.
func fetchProfile(addr string, d time.Duration, path string) error {
	secs := max(1, int(d/time.Second))
	res, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("pprof answered %d", res.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var csrfMeta = regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`)

// signIn boots the page and signs in the demo subscriber as the renderer does,
// and returns the Cookie header a browser would then send.
func signIn(base string) (string, error) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	res, err := client.Get(base + "/")
	if err != nil {
		return "", err
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfMeta.FindSubmatch(page)
	if m == nil {
		return "", errors.New("no CSRF token in the page shell")
	}
	body, _ := json.Marshal(map[string]any{"values": map[string]any{"email": demoEmail, "password": demoPassword}, "path": "/sign-in"})
	req, _ := http.NewRequest(http.MethodPost, base+"/ui/actions/session.sign_in", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", string(m[1]))
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", base)
	res, err = client.Do(req)
	if err != nil {
		return "", err
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("sign-in: %d %s", res.StatusCode, answer)
	}
	u, _ := url.Parse(base)
	var parts []string
	signedIn := false
	for _, c := range jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
		signedIn = signedIn || strings.HasSuffix(c.Name, "glimpse_session")
	}
	if !signedIn {
		return "", errors.New("sign-in set no session cookie")
	}
	return strings.Join(parts, "; "), nil
}

// probe sends one screen request and checks that it is the dashboard.
func probe(build func(*fasthttp.Request)) (encoding string, size int, err error) {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	build(req)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		return "", 0, err
	}
	body, err := res.BodyUncompressed()
	if err != nil {
		return "", 0, err
	}
	if res.StatusCode() != 200 || !bytes.Contains(body, []byte(`"screen":`)) {
		return "", 0, fmt.Errorf("the dashboard answered %d: %.200s", res.StatusCode(), body)
	}
	encoding = string(res.Header.ContentEncoding())
	if encoding == "" {
		encoding = "identity"
	}
	return encoding, len(res.Body()), nil
}

type stats struct {
	requests, errors int64
	rps              float64
	p50, p99         time.Duration
	cpuPerRequest    time.Duration
}

// drive keeps conns requests in flight against addr for d and measures.
func drive(addr string, conns int, d time.Duration, build func(*fasthttp.Request)) stats {
	client := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadTimeout: 10 * time.Second}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	lat := make([][]time.Duration, conns)
	var errs atomic.Int64
	begin := time.Now()
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(res)
			for time.Now().Before(deadline) {
				req.Reset()
				build(req)
				t0 := time.Now()
				if err := client.Do(req, res); err != nil || res.StatusCode() != 200 {
					errs.Add(1)
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(begin)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	s := stats{requests: int64(len(all)), errors: errs.Load(), rps: float64(len(all)) / elapsed.Seconds()}
	if len(all) > 0 {
		s.p50, s.p99 = all[len(all)/2], all[len(all)*99/100]
	}
	return s
}

func median(s []stats) stats {
	sort.Slice(s, func(i, j int) bool { return s[i].rps < s[j].rps })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
