package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
)

// The platform properties a worker advertises and an action may ask for.
const (
	propOSFamily = "OSFamily"
	// propRootfs names the build environment's root filesystem by the hash
	// of its package list (tools/bazel's pkg_hash): an action configured in
	// one environment never runs in another.
	propRootfs = "cubridge-rootfs"
	// propGPU asks for that many GPUs; a worker with N advertises 1..N.
	propGPU = "gpu"
)

// rootfsHashFile is where tools/bazel records the package hash inside the
// root filesystem it sets up.
const rootfsHashFile = "etc/cubridge-rootfs-hash"

var rootfsHashPattern = regexp.MustCompile(`^[0-9a-f]{12,64}$`)

// platform is what this worker offers.
type platform struct {
	osFamily   string
	rootfsHash string
	gpus       int
}

// readRootfsHash reads the package hash recorded in rootfs.
func readRootfsHash(rootfs string) (string, error) {
	data, err := os.ReadFile(filepath.Join(rootfs, rootfsHashFile))
	if err != nil {
		return "", fmt.Errorf("reading the root filesystem's package hash: %w (run tools/bazel once to record it)", err)
	}
	h := strings.TrimSpace(string(data))
	if !rootfsHashPattern.MatchString(h) {
		return "", fmt.Errorf("%s holds %q, not a package hash", filepath.Join(rootfs, rootfsHashFile), h)
	}
	return h, nil
}

func newPlatform(rootfsHash string, gpus int) (platform, error) {
	if !rootfsHashPattern.MatchString(rootfsHash) {
		return platform{}, fmt.Errorf("root filesystem hash %q is not a package hash", rootfsHash)
	}
	if gpus < 0 {
		return platform{}, fmt.Errorf("gpu count %d is negative", gpus)
	}
	return platform{osFamily: "Linux", rootfsHash: rootfsHash, gpus: gpus}, nil
}

// properties are the primary device's properties in the bot session; the
// engine schedules on them.
func (p platform) properties() []*rwpb.Device_Property {
	props := []*rwpb.Device_Property{
		{Key: propOSFamily, Value: p.osFamily},
		{Key: propRootfs, Value: p.rootfsHash},
	}
	for n := 1; n <= p.gpus; n++ {
		props = append(props, &rwpb.Device_Property{Key: propGPU, Value: strconv.Itoa(n)})
	}
	return props
}

// check refuses an action whose platform this worker does not offer: the
// engine should never send one, and running it would give wrong results.
func (p platform) check(req *repb.Platform) error {
	var problems []string
	for _, prop := range req.GetProperties() {
		switch prop.Name {
		case propOSFamily:
			if prop.Value != p.osFamily {
				problems = append(problems, fmt.Sprintf("%s=%s (this worker: %s)", prop.Name, prop.Value, p.osFamily))
			}
		case propRootfs:
			if prop.Value != p.rootfsHash {
				problems = append(problems, fmt.Sprintf("%s=%s (this worker: %s)", prop.Name, prop.Value, p.rootfsHash))
			}
		case propGPU:
			n, err := strconv.Atoi(prop.Value)
			if err != nil || n < 0 {
				problems = append(problems, fmt.Sprintf("%s=%q is not a count", prop.Name, prop.Value))
			} else if n > p.gpus {
				problems = append(problems, fmt.Sprintf("%s=%d (this worker has %d)", prop.Name, n, p.gpus))
			}
		default:
			problems = append(problems, fmt.Sprintf("%s=%s is unknown to this worker", prop.Name, prop.Value))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("this worker does not offer the action's platform: %s", strings.Join(problems, "; "))
	}
	return nil
}
