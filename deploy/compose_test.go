// Package deploy holds the files of the container deployment (compose.yaml
// and Dockerfile at the repository root, the scripts beside this file) and
// tests that check them without Docker or a network.
package deploy

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"glimpse/engine/config"
)

// root is the repository root, where compose.yaml and the Dockerfile live.
const root = ".."

// loadProject loads compose.yaml the way `docker compose config` does, with
// an empty environment so that the defaults in the file are what is checked.
func loadProject(t *testing.T) *types.Project {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cli.NewProjectOptions(
		[]string{filepath.Join(abs, "compose.yaml")},
		cli.WithWorkingDirectory(abs),
		cli.WithName("glimpse"),
		cli.WithEnv(nil),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		t.Fatalf("project options: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := opts.LoadProject(ctx)
	if err != nil {
		t.Fatalf("load compose.yaml: %v", err)
	}
	return p
}

func service(t *testing.T, p *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, err := p.GetService(name)
	if err != nil {
		t.Fatalf("service %q: %v", name, err)
	}
	return s
}

func TestComposeServices(t *testing.T) {
	p := loadProject(t)
	for _, name := range []string{"app", "mongo1", "mongo2", "mongo3", "mongo-init", "mailpit"} {
		service(t, p, name)
	}
	if len(p.Services) != 6 {
		t.Errorf("services = %v, want exactly app, mongo1..3, mongo-init, mailpit", p.ServiceNames())
	}
}

func TestComposeApp(t *testing.T) {
	p := loadProject(t)
	app := service(t, p, "app")

	if app.Build == nil || app.Build.Dockerfile != "Dockerfile" {
		t.Errorf("app.build = %+v, want the root Dockerfile", app.Build)
	}
	if !hasPort(app, 8080) {
		t.Errorf("app.ports = %+v, want 8080", app.Ports)
	}

	env := func(k string) string {
		t.Helper()
		v, ok := app.Environment[k]
		if !ok || v == nil {
			t.Fatalf("app.environment has no %s", k)
		}
		return *v
	}
	u, err := url.Parse(env("MONGODB_URI"))
	if err != nil {
		t.Fatalf("MONGODB_URI: %v", err)
	}
	if u.Scheme != "mongodb" || u.Query().Get("replicaSet") != "rs0" {
		t.Errorf("MONGODB_URI = %q, want a mongodb:// URI with replicaSet=rs0", u)
	}
	for _, m := range []string{"mongo1:27017", "mongo2:27017", "mongo3:27017"} {
		if !strings.Contains(u.Host, m) {
			t.Errorf("MONGODB_URI hosts %q lack %s", u.Host, m)
		}
	}
	if got := env("GLIMPSE_ADDR"); got != "0.0.0.0:8080" {
		t.Errorf("GLIMPSE_ADDR = %q, want 0.0.0.0:8080", got)
	}
	if got := env("GLIMPSE_SMTP_HOST"); got != "mailpit" {
		t.Errorf("GLIMPSE_SMTP_HOST = %q, want mailpit", got)
	}
	if got := env("GLIMPSE_SMTP_PORT"); got != "1025" {
		t.Errorf("GLIMPSE_SMTP_PORT = %q, want 1025", got)
	}

	// The secret comes from a file mounted as a compose secret.
	secretFile := env("GLIMPSE_SECRET_FILE")
	if len(app.Secrets) != 1 || "/run/secrets/"+app.Secrets[0].Source != secretFile {
		t.Errorf("app.secrets = %+v, want one mounted at GLIMPSE_SECRET_FILE=%s", app.Secrets, secretFile)
	} else if s, ok := p.Secrets[app.Secrets[0].Source]; !ok || !strings.HasSuffix(s.File, filepath.Join("deploy", "secrets", "glimpse_secret.txt")) {
		t.Errorf("secret %q = %+v, want file deploy/secrets/glimpse_secret.txt", app.Secrets[0].Source, s)
	}

	if app.HealthCheck == nil || app.HealthCheck.Disable || len(app.HealthCheck.Test) < 2 ||
		!strings.Contains(strings.Join(app.HealthCheck.Test, " "), "/readyz") {
		t.Errorf("app.healthcheck = %+v, want one that hits /readyz", app.HealthCheck)
	}

	dep, ok := app.DependsOn["mongo-init"]
	if !ok || dep.Condition != types.ServiceConditionCompletedSuccessfully {
		t.Errorf("app.depends_on = %+v, want mongo-init: service_completed_successfully", app.DependsOn)
	}

	if !nonRoot(app.User) {
		t.Errorf("app.user = %q, want a non-root uid", app.User)
	}
	if !app.ReadOnly {
		t.Error("app.read_only is false")
	}
	if len(app.Tmpfs) == 0 {
		t.Error("app has no tmpfs for its read-only root")
	}
	if app.Restart == "" || app.Restart == "no" {
		t.Errorf("app.restart = %q, want a restart policy", app.Restart)
	}
	if app.StopGracePeriod == nil {
		t.Fatal("app has no stop_grace_period")
	}
	// SIGTERM must drain within the grace period, before SIGKILL.
	drain, err := time.ParseDuration(env("GLIMPSE_SHUTDOWN_TIMEOUT"))
	if err != nil || drain >= time.Duration(*app.StopGracePeriod) {
		t.Errorf("GLIMPSE_SHUTDOWN_TIMEOUT = %v, want less than stop_grace_period %v", drain, time.Duration(*app.StopGracePeriod))
	}
}

func TestComposeMongo(t *testing.T) {
	p := loadProject(t)
	for _, name := range []string{"mongo1", "mongo2", "mongo3"} {
		s := service(t, p, name)
		if !strings.HasPrefix(s.Image, "mongo:") {
			t.Errorf("%s.image = %q, want mongo", name, s.Image)
		}
		if cmd := strings.Join(s.Command, " "); !strings.Contains(cmd, "--replSet rs0") {
			t.Errorf("%s.command = %q, want --replSet rs0", name, cmd)
		}
		if s.HealthCheck == nil || len(s.HealthCheck.Test) == 0 {
			t.Errorf("%s has no healthcheck", name)
		}
		named := false
		for _, v := range s.Volumes {
			if v.Type == types.VolumeTypeVolume && v.Target == "/data/db" {
				if _, ok := p.Volumes[v.Source]; ok {
					named = true
				}
			}
		}
		if !named {
			t.Errorf("%s keeps /data/db in no named volume: %+v", name, s.Volumes)
		}
	}

	init := service(t, p, "mongo-init")
	for _, name := range []string{"mongo1", "mongo2", "mongo3"} {
		if d, ok := init.DependsOn[name]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("mongo-init.depends_on[%s] = %+v, want service_healthy", name, d)
		}
	}
	if init.Restart != "" && init.Restart != types.RestartPolicyNo {
		t.Errorf("mongo-init.restart = %q, want no restart (one shot)", init.Restart)
	}
	// The script it runs is mounted from the repository.
	mounted := false
	for _, v := range init.Volumes {
		if v.Type == types.VolumeTypeBind && strings.Contains(strings.Join(init.Command, " "), v.Target) {
			if _, err := os.Stat(v.Source); err != nil {
				t.Errorf("mongo-init mounts %s: %v", v.Source, err)
			}
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("mongo-init runs %q, which no bind mount provides", init.Command)
	}
}

func TestComposeMailpit(t *testing.T) {
	p := loadProject(t)
	m := service(t, p, "mailpit")
	if !strings.HasPrefix(m.Image, "axllent/mailpit") {
		t.Errorf("mailpit.image = %q", m.Image)
	}
	if !hasPort(m, 8025) {
		t.Errorf("mailpit.ports = %+v, want the web UI on 8025", m.Ports)
	}
}

func TestMongoInitScript(t *testing.T) {
	b, err := os.ReadFile("mongo-init.js")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`_id: "rs0"`, "mongo1:27017", "mongo2:27017", "mongo3:27017", "rs.initiate(", "NotYetInitialized", "PRIMARY"} {
		if !strings.Contains(s, want) {
			t.Errorf("mongo-init.js lacks %q", want)
		}
	}
}

func TestDockerfile(t *testing.T) {
	stages, final := dockerfile(t)
	if len(stages) < 3 {
		t.Fatalf("Dockerfile has %d stages, want node, go and runtime", len(stages))
	}
	joined := strings.Join(stages, "\n")
	for _, want := range []string{"FROM node:", "npm ci", "npm run build", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1",
		"FROM golang:1.26", "CGO_ENABLED=0 go build -trimpath", "-X main.version=${VERSION}"} {
		if !strings.Contains(joined, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	user := ""
	for _, want := range []string{"EXPOSE 8080", "GLIMPSE_ADDR=0.0.0.0:8080", "GLIMPSE_DATA_DIR=/data",
		`ENTRYPOINT ["/glimpse"]`, `CMD ["serve"]`} {
		if !strings.Contains(final, want) {
			t.Errorf("final stage lacks %q", want)
		}
	}
	for _, line := range strings.Split(final, "\n") {
		if f := strings.Fields(line); len(f) == 2 && strings.EqualFold(f[0], "USER") {
			user = f[1]
		}
	}
	if !nonRoot(user) {
		t.Errorf("final stage USER = %q, want a non-root uid", user)
	}
	// The compose healthcheck runs wget, which the final image must have.
	if !strings.Contains(final, "FROM alpine") && !strings.Contains(final, "busybox") {
		t.Error("final stage has no busybox wget for the healthcheck")
	}
}

func TestDockerignore(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{".git", "**/node_modules", "bin", "data", "renderer/dist/app", "deploy/secrets"} {
		if !have[want] {
			t.Errorf(".dockerignore lacks %q", want)
		}
	}
}

// TestSecretsNotCommitted checks that the secret file compose mounts is
// ignored by git, and that its README explains how to make it.
func TestSecretsNotCommitted(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("secrets", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Fields(string(b)); !contains(lines, "*") && !contains(lines, "*.txt") {
		t.Errorf("secrets/.gitignore does not ignore the .txt files:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join("secrets", "README.md")); err != nil {
		t.Error(err)
	}
}

// dockerfile returns the Dockerfile's stages (continuation lines joined) and
// the last one.
func dockerfile(t *testing.T) (stages []string, final string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cur, line strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			line.WriteString(strings.TrimSuffix(l, "\\"))
			continue
		}
		line.WriteString(l)
		full := line.String()
		line.Reset()
		if strings.HasPrefix(strings.ToUpper(full), "FROM ") && cur.Len() > 0 {
			stages = append(stages, cur.String())
			cur.Reset()
		}
		cur.WriteString(full + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	stages = append(stages, cur.String())
	return stages, stages[len(stages)-1]
}

func hasPort(s types.ServiceConfig, target uint32) bool {
	for _, p := range s.Ports {
		if p.Target == target {
			return true
		}
	}
	return false
}

// nonRoot reports whether a user spec ("uid", "uid:gid", "name") is a
// numeric non-zero uid: a name can't be checked without the image.
func nonRoot(user string) bool {
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.Atoi(uid)
	return err == nil && n > 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestComposeAppConfigStarts: the app's environment in compose.yaml, with
// its defaults, passes the start-up checks `glimpse serve` makes
// (engine/config): outside development they need a payment provider and an
// operator, so a file that left GLIMPSE_ENVIRONMENT unset would not start.
// The secret files exist only in the container, so *_FILE is left out.
func TestComposeAppConfigStarts(t *testing.T) {
	p := loadProject(t)
	app := service(t, p, "app")
	vars := map[string]string{}
	for k, v := range app.Environment {
		if v != nil && !strings.HasSuffix(k, "_FILE") {
			vars[k] = *v
		}
	}
	if _, err := config.Load(func(k string) string { return vars[k] }); err != nil {
		t.Fatalf("compose.yaml's app environment does not start: %v", err)
	}
	// Staging, as the file's comment says, needs the provider and operator.
	vars["GLIMPSE_ENVIRONMENT"] = "staging"
	if _, err := config.Load(func(k string) string { return vars[k] }); err == nil {
		t.Error("staging started with no payment provider and no operator")
	}
}
