// Command cachesrv is a minimal Bazel HTTP remote cache (the protocol of
// --remote_cache=http://...: GET, HEAD and PUT of /ac/<sha256> and
// /cas/<sha256>), kept in a directory. CI uses it to prove that a clean build
// is served from a remote cache; for real use, run bazel-remote, BuildBuddy,
// NativeLink or Buildbarn (see README.md).
//
//	cachesrv -listen 127.0.0.1:9090 -dir /tmp/cache
//
// It counts hits and misses and prints them on SIGTERM / SIGINT, and serves
// them as JSON at /stats.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"syscall"
	"time"
)

var keyPath = regexp.MustCompile(`^/(ac|cas)/([0-9a-f]{64})$`)

type stats struct {
	ACHits, ACMisses, CASHits, CASMisses, Puts atomic.Int64
}

func (s *stats) snapshot() map[string]int64 {
	return map[string]int64{
		"ac_hits": s.ACHits.Load(), "ac_misses": s.ACMisses.Load(),
		"cas_hits": s.CASHits.Load(), "cas_misses": s.CASMisses.Load(), "puts": s.Puts.Load(),
	}
}

type server struct {
	dir   string
	stats stats
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/stats" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.stats.snapshot())
		return
	}
	m := keyPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		http.Error(w, "want /ac/<sha256> or /cas/<sha256>", http.StatusBadRequest)
		return
	}
	kind, path := m[1], filepath.Join(s.dir, m[1], m[2])
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		f, err := os.Open(path)
		if err != nil {
			s.count(kind, false)
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		s.count(kind, true)
		http.ServeContent(w, r, "", time.Time{}, f)
	case http.MethodPut:
		if err := s.put(path, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.stats.Puts.Add(1)
		w.WriteHeader(http.StatusOK)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (s *server) count(kind string, hit bool) {
	switch {
	case kind == "ac" && hit:
		s.stats.ACHits.Add(1)
	case kind == "ac":
		s.stats.ACMisses.Add(1)
	case hit:
		s.stats.CASHits.Add(1)
	default:
		s.stats.CASMisses.Add(1)
	}
}

// put writes atomically: a reader never sees a partial entry.
func (s *server) put(path string, body io.Reader) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

func main() {
	listen := flag.String("listen", "127.0.0.1:9090", "address to serve on")
	dir := flag.String("dir", "", "cache directory (created if missing)")
	flag.Parse()
	if *dir == "" {
		log.Fatal("cachesrv: -dir is required")
	}
	for _, sub := range []string{"ac", "cas"} {
		if err := os.MkdirAll(filepath.Join(*dir, sub), 0o755); err != nil {
			log.Fatal(err)
		}
	}
	s := &server{dir: *dir}
	srv := &http.Server{Addr: *listen, Handler: s}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		out, _ := json.Marshal(s.stats.snapshot())
		fmt.Printf("cachesrv: %s\n", out)
		_ = srv.Close()
	}()
	log.Printf("cachesrv: serving %s on http://%s", *dir, *listen)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
