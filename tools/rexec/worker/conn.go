package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// tokenCredentials present the bearer token of a file on every call. The
// file is read again when it changes, so that `up` can mint a new token
// without restarting workers.
type tokenCredentials struct {
	path   string
	mu     sync.Mutex
	token  string
	loaded time.Time // the file's mtime when read
}

func (t *tokenCredentials) current() (string, error) {
	info, err := os.Stat(t.path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == "" || !info.ModTime().Equal(t.loaded) {
		data, err := os.ReadFile(t.path)
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" {
			return "", fmt.Errorf("token file %s is empty", t.path)
		}
		t.token, t.loaded = tok, info.ModTime()
	}
	return t.token, nil
}

func (t *tokenCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	tok, err := t.current()
	if err != nil {
		return nil, err
	}
	return map[string]string{"authorization": "Bearer " + tok}, nil
}

// RequireTransportSecurity is false: the engine listens on loopback only.
// Against a remote engine, give --tls-ca (or use the system roots).
func (t *tokenCredentials) RequireTransportSecurity() bool { return false }

// dial connects to the engine at target ("host:port"), with the token of
// tokenFile ("" for none) and TLS when caFile is set.
func dial(target, tokenFile, caFile string) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64 << 20)),
	}
	if caFile != "" {
		creds, err := credentials.NewClientTLSFromFile(caFile, "")
		if err != nil {
			return nil, fmt.Errorf("TLS roots: %w", err)
		}
		opts = append(opts, grpc.WithTransportCredentials(creds))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if tokenFile != "" {
		tc := &tokenCredentials{path: tokenFile}
		if _, err := tc.current(); err != nil {
			return nil, err
		}
		opts = append(opts, grpc.WithPerRPCCredentials(tc))
	}
	return grpc.NewClient(target, opts...)
}
