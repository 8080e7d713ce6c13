//go:build faults

// Package faults runs the real binary through the faults of issue #8: load
// at saturation with a sign-in flood, the database going away under load, and
// two instances sharing one database. Each test starts bin/glimpse on
// loopback (on the embedded store, or on the MongoDB of
// GLIMPSE_TEST_MONGODB_URI where a test needs a database process of its own),
// drives it over HTTP as the renderer does, and stops it. Run with
// `make faults` (or one of `make fault-load`, `fault-db`, `fault-instances`);
// figures are printed with -v.
package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Demo accounts that `GLIMPSE_DEMO=1` seeds (engine/app).
const (
	demoEmail     = "demo@example.com"
	demoPassword  = "glimpse-demo"
	editorEmail   = "editor@example.com"
	editorPass    = "glimpse-editor"
	schemaVersion = "1"
)

// binary returns the path of the glimpse binary `make build` wrote.
func binary(t testing.TB) string {
	t.Helper()
	p := os.Getenv("GLIMPSE_BIN")
	if p == "" {
		p = filepath.Join("..", "..", "bin", "glimpse")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("no binary at %s (run make build): %v", abs, err)
	}
	return abs
}

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// process is a child process whose output goes to a file in the test's
// temporary directory, printed when the test fails.
type process struct {
	t    testing.TB
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func start(t testing.TB, name string, env []string, args ...string) *process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = t.TempDir()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{t: t, name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.stop(syscall.SIGKILL)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("--- %s log (tail) ---\n%s", name, b)
		}
	})
	return p
}

// stop sends sig and waits up to 15 s for the process to end.
func (p *process) stop(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// rssKiB reads the process's resident set size from /proc.
func (p *process) rssKiB() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// logContains reports whether the process's log has a line matching re.
func (p *process) logCount(re *regexp.Regexp) int {
	f, err := os.Open(p.log)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if re.Match(sc.Bytes()) {
			n++
		}
	}
	return n
}

// envMongoURI names the MongoDB the tests that need one use (a replica set, as
// production runs): two instances on one database, and the database killed
// under a running app. The embedded store has no database process to kill,
// and its data directory's lock admits one process.
const envMongoURI = "GLIMPSE_TEST_MONGODB_URI"

// mongoDatabase returns the MongoDB URI of envMongoURI and a database name of
// the test's own, dropped when it ends; it skips the test, saying why, when
// the variable is unset.
func mongoDatabase(t testing.TB, why string) (uri, database string) {
	t.Helper()
	uri = os.Getenv(envMongoURI)
	if uri == "" {
		t.Skipf("%s is unset: %s", envMongoURI, why)
	}
	database = fmt.Sprintf("glimpse_fault_%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			t.Logf("drop %s: %v", database, err)
			return
		}
		defer func() { _ = client.Disconnect(ctx) }()
		if err := client.Database(database).Drop(ctx); err != nil {
			t.Logf("drop %s: %v", database, err)
		}
	})
	return uri, database
}

// shell runs command with sh -c (an operator's command from the
// environment, such as `docker compose kill mongo1`) and fails the test if it
// fails.
func shell(t testing.TB, command string) {
	t.Helper()
	out, err := exec.Command("sh", "-c", command).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
}

// app is one running instance of the server.
type app struct {
	*process
	base string
}

// startApp runs `glimpse serve` with the demo data on a free loopback port
// and waits until /readyz answers 200. extra adds environment variables.
func startApp(t testing.TB, name, dataDir string, extra ...string) *app {
	t.Helper()
	return startAppAt(t, name, freeAddr(t), dataDir, extra...)
}

// startAppAt is startApp on a given address: a restarted instance takes its
// predecessor's, so the clients under load reach it at the same URL.
func startAppAt(t testing.TB, name, addr, dataDir string, extra ...string) *app {
	t.Helper()
	env := append([]string{
		"GLIMPSE_ADDR=" + addr,
		"GLIMPSE_DATA_DIR=" + dataDir,
		"GLIMPSE_DEMO=1",
		// The sandbox and the fictional operator, as make run.
		"GLIMPSE_ENVIRONMENT=development",
		"GLIMPSE_LOG_LEVEL=info",
		// One secret for every instance, as a deployment would configure it.
		"GLIMPSE_SECRET=fault-tests-secret-0123456789abcdef",
	}, extra...)
	a := &app{process: start(t, name, env, "serve"), base: "http://" + addr}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-a.done:
			t.Fatalf("%s exited during start-up", name)
		default:
		}
		res, err := http.Get(a.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return a
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s not ready within 90 s", name)
	return nil
}

// browser is one visitor: a cookie jar and the CSRF token its page carries,
// talking to the server as the renderer does.
type browser struct {
	base   string
	client *http.Client
	csrf   string
	// forwardedFor, when set, is sent as X-Forwarded-For (the app must trust
	// loopback as a proxy for it to count).
	forwardedFor string
}

func newBrowser(base string, timeout time.Duration) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{base: base, client: &http.Client{Jar: jar, Timeout: timeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// withBase returns a browser for another instance that shares this one's
// cookies (the same person, behind a load balancer).
func (b *browser) withBase(base string) *browser {
	jar, _ := cookiejar.New(nil)
	from, _ := url.Parse(b.base)
	to, _ := url.Parse(base)
	jar.SetCookies(to, b.client.Jar.Cookies(from))
	return &browser{base: base, csrf: b.csrf, client: &http.Client{Jar: jar, Timeout: b.client.Timeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

type reply struct {
	status int
	body   map[string]any
	took   time.Duration
}

func (b *browser) do(req *http.Request) (reply, error) {
	if b.forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", b.forwardedFor)
	}
	t0 := time.Now()
	res, err := b.client.Do(req)
	if err != nil {
		return reply{took: time.Since(t0)}, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := reply{status: res.StatusCode, took: time.Since(t0)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &r.body)
	}
	if tok := res.Header.Get("X-CSRF-Token"); tok != "" {
		b.csrf = tok
	}
	if m := csrfMeta.FindSubmatch(raw); m != nil {
		b.csrf = string(m[1])
	}
	if meta, ok := r.body["meta"].(map[string]any); ok {
		if tok, _ := meta["csrf"].(string); tok != "" {
			b.csrf = tok
		}
	}
	return r, nil
}

var csrfMeta = regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`)

// boot loads the page as a browser does first.
func (b *browser) boot() (reply, error) {
	req, _ := http.NewRequest(http.MethodGet, b.base+"/", nil)
	return b.do(req)
}

// screen asks for the screen at path.
func (b *browser) screen(path string) (reply, error) {
	req, _ := http.NewRequest(http.MethodGet, b.base+"/ui/screen?path="+url.QueryEscape(path), nil)
	req.Header.Set("X-SDUI-Version", schemaVersion)
	return b.do(req)
}

// action posts values to a named action.
func (b *browser) action(name, path string, values map[string]any) (reply, error) {
	body, _ := json.Marshal(map[string]any{"values": values, "path": path})
	req, _ := http.NewRequest(http.MethodPost, b.base+"/ui/actions/"+name, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", schemaVersion)
	req.Header.Set("X-CSRF-Token", b.csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", b.base)
	return b.do(req)
}

// signIn boots the page if needed and signs in; ok reports a session.
func (b *browser) signIn(email, password string) (reply, bool, error) {
	if b.csrf == "" {
		if _, err := b.boot(); err != nil {
			return reply{}, false, err
		}
	}
	r, err := b.action("session.sign_in", "/sign-in", map[string]any{"email": email, "password": password})
	if err != nil {
		return r, false, err
	}
	return r, r.status == http.StatusOK && b.signedIn(), nil
}

// signedIn reports whether the jar holds a session cookie for the base.
func (b *browser) signedIn() bool {
	u, _ := url.Parse(b.base)
	for _, c := range b.client.Jar.Cookies(u) {
		if strings.HasSuffix(c.Name, "glimpse_session") && c.Value != "" {
			return true
		}
	}
	return false
}

// screenID returns the id of the screen in a reply, or the target of its
// replace effect (a guard's redirect), prefixed with "->".
func screenID(r reply) string {
	if s, ok := r.body["screen"].(map[string]any); ok {
		id, _ := s["id"].(string)
		return id
	}
	if effects, ok := r.body["effects"].([]any); ok {
		for _, e := range effects {
			if m, ok := e.(map[string]any); ok && m["type"] == "replace" {
				to, _ := m["to"].(string)
				return "->" + to
			}
		}
	}
	return ""
}

// latencies collects request durations for percentiles.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) percentile(p float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), l.d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p)
	return s[i]
}

func (l *latencies) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.d)
}

// statuses counts answers by HTTP status (0 for transport errors).
type statuses struct {
	mu sync.Mutex
	n  map[int]int
}

func (s *statuses) add(code int) {
	s.mu.Lock()
	if s.n == nil {
		s.n = map[int]int{}
	}
	s.n[code]++
	s.mu.Unlock()
}

func (s *statuses) serverErrors() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for code, c := range s.n {
		if code >= 500 || code == 0 {
			n += c
		}
	}
	return n
}

func (s *statuses) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	codes := make([]int, 0, len(s.n))
	for c := range s.n {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d×%d", c, s.n[c]))
	}
	return strings.Join(parts, " ")
}

// seconds reads a duration in seconds from the environment.
func seconds(name string, def int) time.Duration {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return time.Duration(v) * time.Second
	}
	return time.Duration(def) * time.Second
}

// until runs f every interval until it returns true or d passes; it returns
// how long that took and whether it happened.
func until(ctx context.Context, d, interval time.Duration, f func() bool) (time.Duration, bool) {
	t0 := time.Now()
	for time.Since(t0) < d {
		if f() {
			return time.Since(t0), true
		}
		select {
		case <-ctx.Done():
			return time.Since(t0), false
		case <-time.After(interval):
		}
	}
	return time.Since(t0), false
}
