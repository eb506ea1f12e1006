//go:build linux

package exthost

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileEnviron is spirit's environment as an attacker hopes to find it.
var hostileEnviron = []string{
	"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TZ=UTC", "TERM=xterm",
	"DATABASE_URL=postgres://app:hunter2@db/app", "GH_PAT=ghp_x", "BW_SESSION=bw", "MYSQL_PWD=pw",
	"CI_JOB_JWT=jwt", "SENTRY_DSN=https://key@sentry.io/1", "NPM_TOKEN=npm", "OPENAI_API_KEY=sk",
	"SPIRIT_KEYRING_PASSWORD=ring", "HTTPS_PROXY=http://u:p@proxy.example:3128", "http_proxy=u:p@proxy.example:3128",
	"NO_PROXY=localhost,127.0.0.1", "GRANTED_DB=granted",
}

func TestChildEnv(t *testing.T) {
	got := childEnv(hostileEnviron, []string{"GRANTED_DB"})
	want := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TZ=UTC", "TERM=xterm",
		"HTTPS_PROXY=http://proxy.example:3128", "http_proxy=proxy.example:3128", "NO_PROXY=localhost,127.0.0.1",
		"GRANTED_DB=granted",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("childEnv =\n%q\nwant\n%q", got, want)
	}
}

func TestStripUserinfo(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no userinfo", "http://proxy:3128", "http://proxy:3128"},
		{"user and password", "http://u:p@proxy:3128", "http://proxy:3128"},
		{"no scheme", "u:p@proxy:3128", "proxy:3128"},
		{"password with @", "http://u:p@ss@proxy:3128/", "http://proxy:3128/"},
		{"socks", "socks5://u:p@proxy:1080", "socks5://proxy:1080"},
		{"@ in the path only", "http://proxy/a@b", "http://proxy/a@b"},
		{"not a URL", "http://u:p@pro xy", "http://pro xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripUserinfo(tt.in); got != tt.want {
				t.Errorf("stripUserinfo(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A real extension dumps its environment: only the allow list, the
// granted name and credential-free proxies reach it.
func TestExtensionEnvironment(t *testing.T) {
	h := hostileHost(t, func(o *Options) {
		o.Environ = hostileEnviron
		o.ExtraEnv = func(id string) []string {
			if id == "@fixture/hostile" {
				return []string{"GRANTED_DB"}
			}
			return nil
		}
	})
	got, err := call(t, h, "@fixture/hostile/env", "")
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(got), &env); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"DATABASE_URL", "GH_PAT", "BW_SESSION", "MYSQL_PWD", "CI_JOB_JWT", "SENTRY_DSN", "NPM_TOKEN", "OPENAI_API_KEY", "SPIRIT_KEYRING_PASSWORD"} {
		if v, ok := env[name]; ok {
			t.Errorf("the extension sees %s=%s", name, v)
		}
	}
	if env["HTTPS_PROXY"] != "http://proxy.example:3128" || env["http_proxy"] != "proxy.example:3128" {
		t.Errorf("proxies: %q %q", env["HTTPS_PROXY"], env["http_proxy"])
	}
	if env["GRANTED_DB"] != "granted" || env["LC_ALL"] != "C" || env["PATH"] == "" {
		t.Errorf("allowed variables missing: %v", env)
	}
}

// Nothing the extension spawned (a plain child, a detached one in its own
// session, one holding the log pipe) survives the timeout kill.
func TestNoOrphansAfterTimeout(t *testing.T) {
	h := hostileHost(t, func(o *Options) { o.CallTimeout = 3 * time.Second })
	pidfile := filepath.Join(t.TempDir(), "pids")
	_, err := callWithin(t, h, 10*time.Second, "@fixture/hostile/spawn", `{"pidfile":`+quote(pidfile)+`}`)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("spawn: %v", err)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	if err := json.Unmarshal(b, &pids); err != nil || len(pids) != 3 {
		t.Fatalf("pids %s %v", b, err)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	waitGone(t, pids, 5*time.Second)
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d (of %v) survived the timeout kill", pid, pids)
		}
	}
}

// alive says pid runs and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// spirit marks itself non-dumpable: an extension of the same user cannot
// read its /proc/PID/environ or maps. The test runs in a child process as
// an unprivileged user (root could read them anyway); the first read,
// before HardenProcess, shows the attack works.
func TestNonDumpable(t *testing.T) {
	if os.Getenv("SPIRIT_TEST_DUMPABLE_CHILD") == "" {
		runNonDumpableChild(t)
		return
	}
	h := hostileHost(t, nil)
	read := func() map[string]any {
		got, err := call(t, h, "@fixture/hostile/environ", "")
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(got), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if before := read(); before["environ"] == "EACCES" {
		t.Fatalf("before hardening the extension could not read spirit's environ: %v", before)
	}
	if err := HardenProcess(); err != nil {
		t.Fatal(err)
	}
	if after := read(); after["environ"] != "EACCES" || after["maps"] != "EACCES" {
		t.Fatalf("after hardening: %v", after)
	}
}

func runNonDumpableChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestNonDumpable$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SPIRIT_TEST_DUMPABLE_CHILD=1")
	if os.Geteuid() == 0 {
		// As root the extension could read anything: run as nobody, from a
		// copy of the test binary that nobody may execute.
		dir, err := os.MkdirTemp("", "nondumpable")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		copyExe := filepath.Join(dir, "runtime.test")
		if err := copyFile(exe, copyExe); err != nil {
			t.Fatal(err)
		}
		cmd.Path = copyExe
		cmd.Env = append(cmd.Env, "HOME="+dir, "TMPDIR=/tmp")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// An extension writing 40 MB to stderr in a burst leaves at most twice the
// log cap on disk while it runs.
func TestLogFloodCapped(t *testing.T) {
	const max = 1 << 20
	h := hostileHost(t, func(o *Options) { o.MaxLogSize = max; o.CallTimeout = 60 * time.Second })
	if got, err := callWithin(t, h, 90*time.Second, "@fixture/hostile/logflood", `{"mb":40}`); err != nil || got != "flooded" {
		t.Fatalf("logflood: %q %v", got, err)
	}
	// The log is written after the result; Close waits for the writer.
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	log := h.opts.Paths.LogFile("@fixture/hostile")
	var total int64
	for _, p := range []string{log, log + ".1"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	if total > 2*max {
		t.Fatalf("logs hold %d bytes, want at most %d", total, 2*max)
	}
}

// A secret split across the 64 KiB parts of a long log line is masked, and
// so is a secret with " and \ inside an object result (JSON-escaped there).
func TestMaskingStraddleAndEscaped(t *testing.T) {
	h := hostileHost(t, nil)
	const secret = `s3cr"et\value-1234`
	for _, pad := range []int{65536 - 7, 65536 - 1, 2*65536 - 10} {
		args, _ := json.Marshal(map[string]any{"key": "api-key", "value": secret, "pad": pad})
		if _, err := call(t, h, "@fixture/hostile/secret", string(args)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := call(t, h, "@fixture/hostile/secretobj", `{"key":"api-key"}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "1234") || !strings.Contains(got, "***") {
		t.Errorf("object result leaks the secret: %s", got)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(h.opts.Paths.LogFile("@fixture/hostile"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "value-1234"); n > 0 {
		t.Errorf("the log holds the secret %d times", n)
	}
	if n := strings.Count(string(b), "***"); n != 3 {
		t.Errorf("the log holds %d masks, want 3", n)
	}
}

// A secret whose halves go to stderr around a write to stdout (interleaved
// streams, with a short and a long line) is masked: each stream is held back
// on its own, so the stdout line never cuts the stderr one.
func TestMaskingInterleavedStreams(t *testing.T) {
	h := hostileHost(t, nil)
	const secret = "interleaved-secret-7788"
	for _, pad := range []int{0, 100, 70000} {
		for _, between := range []string{"out\n", "out without a newline", "\n"} {
			args, _ := json.Marshal(map[string]any{"key": "api-key", "value": secret, "pad": pad, "between": between})
			if _, err := call(t, h, "@fixture/hostile/secret", string(args)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(h.opts.Paths.LogFile("@fixture/hostile"))
	if err != nil {
		t.Fatal(err)
	}
	half := len(secret) / 2
	for _, part := range []string{secret, secret[:half], secret[half:]} {
		if n := strings.Count(string(b), part); n > 0 {
			t.Errorf("the log holds %q %d times", part, n)
		}
	}
	if n := strings.Count(string(b), "***"); n != 9 {
		t.Errorf("the log holds %d masks, want 9", n)
	}
}
