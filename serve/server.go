package serve

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/scenarios"
)

//go:embed web
var webFS embed.FS

// Options configure a Server.
type Options struct {
	// Command is the command line that loads the base scenario, e.g.
	// poolsim run s.yaml --from server.xml: the page shows it with its
	// overrides appended as --set flags. Empty when the scenario has no
	// file of its own; the page then offers only the downloaded YAML.
	Command []string
	// Seed, when set, replaces the scenario's seed in every run (poolsim
	// serve --seed), as it replaced it in the base.
	Seed *uint64
	// Parallel bounds the simulations running at once; 0 means one per
	// CPU.
	Parallel int
	// Log receives one line per failed request; nil discards them.
	Log *log.Logger
}

// Server is the what-if page of one scenario, an http.Handler.
type Server struct {
	base *scenarios.Scenario
	opt  Options
	sem  chan struct{}
	mux  *http.ServeMux
	// hosts are the Host headers the server answers (see checkHost); nil
	// answers any.
	hosts map[string]bool
}

// maxSets bounds the overrides of one request.
const maxSets = 64

// New returns the page of base, the scenario as the command line loaded
// it. Every run re-parses base's text with base's overrides and then the
// page's, so that an override behaves exactly as on the command line.
func New(base *scenarios.Scenario, opt Options) (*Server, error) {
	if base == nil {
		return nil, errors.New("serve: no scenario")
	}
	if _, err := scenarios.Parse(base.Text, base.Path, base.Sets); err != nil {
		return nil, fmt.Errorf("serve: the base scenario does not load again from its text: %w", err)
	}
	if err := checkSamples(base); err != nil {
		return nil, err
	}
	if opt.Parallel <= 0 {
		opt.Parallel = runtime.NumCPU()
	}
	s := &Server{base: base, opt: opt, sem: make(chan struct{}, opt.Parallel), mux: http.NewServeMux()}
	web, err := fs.Sub(webFS, "web")
	if err != nil {
		return nil, err
	}
	files := http.FileServerFS(web)
	s.mux.Handle("GET /{$}", files)
	s.mux.Handle("GET /app.js", files)
	s.mux.Handle("GET /app.css", files)
	s.mux.Handle("GET /vendor/", files)
	s.mux.HandleFunc("GET /report.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		fmt.Fprint(w, report.StyleSheet())
	})
	s.mux.HandleFunc("GET /api/base", s.handleBase)
	s.mux.HandleFunc("GET /api/run", s.handleRun)
	s.mux.HandleFunc("GET /api/explain", s.handleExplain)
	s.mux.HandleFunc("GET /api/scenario.yaml", s.handleYAML)
	return s, nil
}

// contentPolicy lets the page load only from the server itself.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// ServeHTTP answers a request: the page, its files, or the API. A panic
// while answering is a poolsim bug: it becomes a 500, never a crash.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logf("serve: internal error on %s: %v", r.URL.Path, v)
			writeError(w, http.StatusInternalServerError, fmt.Sprintf("poolsim: internal error: %v (this is a bug in poolsim; please report it)", v), "")
		}
	}()
	if !s.checkHost(r.Host) {
		http.Error(w, "poolsim serve: unexpected Host header (the page answers only its own address)", http.StatusMisdirectedRequest)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) logf(format string, args ...any) {
	if s.opt.Log != nil {
		s.opt.Log.Printf(format, args...)
	}
}

// checkHost reports whether a request's Host header names the server: a
// page on another site that resolves its own name to 127.0.0.1 (DNS
// rebinding) must not drive it.
func (s *Server) checkHost(host string) bool {
	if s.hosts == nil {
		return true
	}
	return s.hosts[strings.ToLower(host)]
}

// baseView is what the page needs before its first run.
type baseView struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	File        string     `json:"file"`
	Choices     choices    `json:"choices"`
	Base        configView `json:"base"`
	Command     string     `json:"command"`
}

func (s *Server) handleBase(w http.ResponseWriter, r *http.Request) {
	v := baseView{Name: s.base.Name, Description: s.base.Description, File: s.base.Path, Choices: allChoices(), Base: viewOf(s.base)}
	if len(s.opt.Command) > 0 {
		v.Command = command(s.opt.Command, nil)
	}
	writeJSON(w, http.StatusOK, v)
}

// pageSets reads the overrides of a request: the set parameters, in order.
func pageSets(r *http.Request) ([]string, error) {
	sets := r.URL.Query()["set"]
	if len(sets) > maxSets {
		return nil, fmt.Errorf("poolsim: more than %d overrides", maxSets)
	}
	return sets, nil
}

// request reads a request's overrides and loads the scenario with them;
// on bad input it answers with the command line's message under code and
// returns ok false.
func (s *Server) request(w http.ResponseWriter, r *http.Request, code int) (sc *scenarios.Scenario, sets []string, ok bool) {
	sets, err := pageSets(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "")
		return nil, nil, false
	}
	if sc, err = s.load(sets); err != nil {
		writeError(w, code, "poolsim: "+oneLine(err.Error()), errKey(err))
		return nil, nil, false
	}
	return sc, sets, true
}

// load parses the base scenario again with the page's overrides after the
// command line's, as poolsim run would load it.
func (s *Server) load(sets []string) (*scenarios.Scenario, error) {
	sc, err := scenarios.Parse(s.base.Text, s.base.Path, append(slices.Clip(s.base.Sets), sets...))
	if err != nil {
		return nil, err
	}
	if s.opt.Seed != nil {
		sc.Seed = *s.opt.Seed
	}
	return sc, checkSamples(sc)
}

// maxSamples bounds the timeline of a run the page asks for: a day at one
// sample a second. The timeline is held in memory while the run goes on,
// so a sample of a nanosecond must not be able to exhaust the machine.
const maxSamples = 100_000

// checkSamples refuses a scenario whose timeline would exceed maxSamples.
func checkSamples(sc *scenarios.Scenario) error {
	if sc.Sample <= 0 || sc.Duration <= 0 || sc.Duration/sc.Sample <= maxSamples {
		return nil
	}
	return inputerr.New("", 0, 0, "sample", fmt.Sprintf("%v over a duration of %v makes %d timeline samples, more than the %d poolsim serve draws",
		sc.Sample, sc.Duration, sc.Duration/sc.Sample, maxSamples), fmt.Sprintf("a sample of at least %v", (sc.Duration+maxSamples-1)/maxSamples))
}

// handleYAML sends the scenario with the page's overrides applied, as a
// file to download.
func (s *Server) handleYAML(w http.ResponseWriter, r *http.Request) {
	sc, sets, ok := s.request(w, r, http.StatusBadRequest)
	if !ok {
		return
	}
	text, err := sc.EditedText()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "poolsim: "+oneLine(err.Error()), "")
		return
	}
	if len(sets) > 0 || len(s.base.Sets) > 0 {
		text = append([]byte(fmt.Sprintf("# %s, as poolsim serve showed it:\n#   %s\n", sc.Name, command(s.opt.Command, sets))), text...)
	}
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", downloadName(sc)))
	w.Write(text)
}

// downloadName is the file name the page's YAML is saved under.
func downloadName(sc *scenarios.Scenario) string {
	return output.DirName(sc.Name) + "-whatif.yaml"
}

// errorMsg is a refusal: the command line's message for the same input,
// and the key at fault when there is one.
type errorMsg struct {
	Type    string `json:"type"` // "error"
	Message string `json:"message"`
	Key     string `json:"key,omitempty"`
}

func writeError(w http.ResponseWriter, code int, msg, key string) {
	writeJSON(w, code, errorMsg{Type: "error", Message: msg, Key: key})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"type":"error","message":"poolsim: cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// Listen binds addr (127.0.0.1:8080 by default; port 0 picks one), makes
// the server answer only requests addressed to it, and returns the
// listener and the page's URL.
func (s *Server) Listen(addr string) (net.Listener, string, error) {
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		// Listening on every interface, as asked: any name may reach it.
		s.hosts = nil
		return ln, "http://" + net.JoinHostPort("127.0.0.1", port) + "/", nil
	}
	s.hosts = map[string]bool{}
	for _, h := range []string{host, "localhost"} {
		s.hosts[strings.ToLower(net.JoinHostPort(h, port))] = true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		for _, h := range []string{"127.0.0.1", "::1"} {
			s.hosts[net.JoinHostPort(h, port)] = true
		}
	}
	return ln, "http://" + net.JoinHostPort(host, port) + "/", nil
}

// Serve answers on ln until ctx is done, then shuts down, giving running
// requests a second to end (their simulations see their contexts
// cancelled).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
