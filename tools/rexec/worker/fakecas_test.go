package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/require"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
)

// fakeCAS is an in-memory CAS and ByteStream server. Its blobs may be made
// corrupt on purpose (stored bytes that do not match their digest).
type fakeCAS struct {
	repb.UnimplementedContentAddressableStorageServer
	bspb.UnimplementedByteStreamServer
	mu    sync.Mutex
	blobs map[string][]byte
	reads map[string]int // times each blob was read
}

func newFakeCAS() *fakeCAS {
	return &fakeCAS{blobs: map[string][]byte{}, reads: map[string]int{}}
}

// put stores data under its digest.
func (f *fakeCAS) put(data []byte) *repb.Digest {
	d := digestOf(data)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blobs[digestKey(d)] = append([]byte(nil), data...)
	return d
}

func (f *fakeCAS) putMessage(t *testing.T, m proto.Message) *repb.Digest {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	require.NoError(t, err)
	return f.put(data)
}

// corrupt replaces the stored bytes of d, keeping its length.
func (f *fakeCAS) corrupt(d *repb.Digest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.blobs[digestKey(d)]
	b[0] ^= 0xff
}

func (f *fakeCAS) get(d *repb.Digest) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.blobs[digestKey(d)]
	if ok {
		f.reads[digestKey(d)]++
	}
	return b, ok
}

func (f *fakeCAS) has(d *repb.Digest) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.blobs[digestKey(d)]
	return ok
}

func (f *fakeCAS) FindMissingBlobs(_ context.Context, req *repb.FindMissingBlobsRequest) (*repb.FindMissingBlobsResponse, error) {
	resp := &repb.FindMissingBlobsResponse{}
	for _, d := range req.BlobDigests {
		if !f.has(d) {
			resp.MissingBlobDigests = append(resp.MissingBlobDigests, d)
		}
	}
	return resp, nil
}

func (f *fakeCAS) BatchReadBlobs(_ context.Context, req *repb.BatchReadBlobsRequest) (*repb.BatchReadBlobsResponse, error) {
	resp := &repb.BatchReadBlobsResponse{}
	for _, d := range req.Digests {
		r := &repb.BatchReadBlobsResponse_Response{Digest: d, Status: &spb.Status{}}
		if b, ok := f.get(d); ok {
			r.Data = b
		} else {
			r.Status.Code = int32(codes.NotFound)
		}
		resp.Responses = append(resp.Responses, r)
	}
	return resp, nil
}

func (f *fakeCAS) BatchUpdateBlobs(_ context.Context, req *repb.BatchUpdateBlobsRequest) (*repb.BatchUpdateBlobsResponse, error) {
	resp := &repb.BatchUpdateBlobsResponse{}
	for _, r := range req.Requests {
		st := &spb.Status{}
		if verifyBlob(r.Digest, r.Data) != nil {
			st.Code = int32(codes.InvalidArgument)
		} else {
			f.put(r.Data)
		}
		resp.Responses = append(resp.Responses, &repb.BatchUpdateBlobsResponse_Response{Digest: r.Digest, Status: st})
	}
	return resp, nil
}

// digestFromResource reads ".../blobs/HASH/SIZE".
func digestFromResource(name string) (*repb.Digest, error) {
	parts := strings.Split(name, "/")
	for i := range parts {
		if parts[i] == "blobs" && i+2 < len(parts) {
			size, err := strconv.ParseInt(parts[i+2], 10, 64)
			if err != nil {
				return nil, err
			}
			return &repb.Digest{Hash: parts[i+1], SizeBytes: size}, nil
		}
	}
	return nil, fmt.Errorf("no digest in %q", name)
}

func (f *fakeCAS) Read(req *bspb.ReadRequest, stream bspb.ByteStream_ReadServer) error {
	d, err := digestFromResource(req.ResourceName)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	b, ok := f.get(d)
	if !ok {
		return status.Error(codes.NotFound, "no such blob")
	}
	for len(b) > 0 {
		n := min(len(b), 1000)
		if err := stream.Send(&bspb.ReadResponse{Data: b[:n]}); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func (f *fakeCAS) Write(stream bspb.ByteStream_WriteServer) error {
	var name string
	var data []byte
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if req.ResourceName != "" {
			name = req.ResourceName
		}
		data = append(data, req.Data...)
		if req.FinishWrite {
			break
		}
	}
	d, err := digestFromResource(name)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	if verifyBlob(d, data) != nil {
		return status.Error(codes.InvalidArgument, "data does not match the digest")
	}
	f.put(data)
	return stream.SendAndClose(&bspb.WriteResponse{CommittedSize: int64(len(data))})
}

// serveFake starts a gRPC server on an in-memory listener with the given
// registrations and returns a client connection to it.
func serveFake(t *testing.T, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	register(srv)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///fake",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// newTestCAS is a fake CAS and a client of it whose batches hold at most
// batchLimit bytes (small limits force ByteStream).
func newTestCAS(t *testing.T, batchLimit int64) (*fakeCAS, *casClient) {
	f := newFakeCAS()
	conn := serveFake(t, func(s *grpc.Server) {
		repb.RegisterContentAddressableStorageServer(s, f)
		bspb.RegisterByteStreamServer(s, f)
	})
	return f, newCASClient(conn, "main", batchLimit)
}
