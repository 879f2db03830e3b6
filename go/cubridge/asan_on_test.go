//go:build asan

package cubridge_test

// Built with --config=asan (go build -asan sets the asan tag).
func init() { asanBuild = true }
