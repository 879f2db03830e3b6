package main

import (
	"container/list"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
)

// fileCache keeps the input files a worker fetched, by digest and mode, so
// that the next action that needs one gets a hard link instead of a fetch
// (toolchains are large inputs of every action). Entries live on the same
// file system as the actions' directories. An entry whose size or mtime
// changed (an action wrote through its link) is dropped, not used. The
// least recently used entries go when the cache outgrows its limit.
type fileCache struct {
	dir      string
	maxBytes int64
	mu       sync.Mutex
	entries  map[string]*list.Element // key -> element of lru holding *cacheEntry
	lru      *list.List               // front: most recently used
	size     int64
}

type cacheEntry struct {
	key   string
	size  int64
	mtime time.Time
}

func cacheKey(d *repb.Digest, executable bool) string {
	mode := "r"
	if executable {
		mode = "x"
	}
	return fmt.Sprintf("%s-%d-%s", d.Hash, d.SizeBytes, mode)
}

func (c *fileCache) path(key string) string { return filepath.Join(c.dir, key[:2], key) }

// openFileCache opens (or makes) the cache in dir, taking in what an earlier
// worker left there, oldest first in line to go.
func openFileCache(dir string, maxBytes int64) (*fileCache, error) {
	c := &fileCache{dir: dir, maxBytes: maxBytes, entries: map[string]*list.Element{}, lru: list.New()}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var found []cacheEntry
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			return os.Remove(path) // an insertion cut short
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		found = append(found, cacheEntry{key: d.Name(), size: info.Size(), mtime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(found, func(i, j int) bool { return found[i].mtime.After(found[j].mtime) })
	for i := range found {
		c.entries[found[i].key] = c.lru.PushBack(&found[i])
		c.size += found[i].size
	}
	c.mu.Lock()
	c.evict()
	c.mu.Unlock()
	return c, nil
}

// link makes dst a hard link to the cached file, if the cache has it intact.
func (c *fileCache) link(d *repb.Digest, executable bool, dst string) bool {
	if c == nil {
		return false
	}
	key := cacheKey(d, executable)
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return false
	}
	e := el.Value.(*cacheEntry)
	info, err := os.Stat(c.path(key))
	if err != nil || info.Size() != e.size || !info.ModTime().Equal(e.mtime) {
		c.drop(el)
		return false
	}
	if err := os.Link(c.path(key), dst); err != nil {
		return false
	}
	c.lru.MoveToFront(el)
	return true
}

// add takes in src, a file just fetched and verified, by a hard link.
func (c *fileCache) add(d *repb.Digest, executable bool, src string) error {
	if c == nil {
		return nil
	}
	key := cacheKey(d, executable)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path(key)), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(c.path(key)), ".tmp-"+key+"-"+strconv.Itoa(os.Getpid()))
	os.Remove(tmp)
	if err := os.Link(src, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.path(key)); err != nil {
		os.Remove(tmp)
		return err
	}
	info, err := os.Stat(c.path(key))
	if err != nil {
		return err
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, size: info.Size(), mtime: info.ModTime()})
	c.size += info.Size()
	c.evict()
	return nil
}

func (c *fileCache) drop(el *list.Element) {
	e := el.Value.(*cacheEntry)
	os.Remove(c.path(e.key))
	c.lru.Remove(el)
	delete(c.entries, e.key)
	c.size -= e.size
}

// evict removes least recently used entries until the cache fits.
func (c *fileCache) evict() {
	for c.size > c.maxBytes && c.lru.Len() > 0 {
		c.drop(c.lru.Back())
	}
}
