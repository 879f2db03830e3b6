package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// defaultBatchLimit bounds the bytes of one batch request when the engine
// does not say: gRPC's default message limit is 4 MiB, less room for framing.
const defaultBatchLimit = 4<<20 - 64<<10

// byteStreamChunk is the size of one ByteStream write message.
const byteStreamChunk = 1 << 20

// casClient reads and writes the engine's content-addressable storage. Every
// blob it reads is checked against its digest before anyone sees it.
type casClient struct {
	instance   string
	cas        repb.ContentAddressableStorageClient
	bs         bspb.ByteStreamClient
	batchLimit int64 // blobs larger than this go through ByteStream
}

func newCASClient(conn grpc.ClientConnInterface, instance string, batchLimit int64) *casClient {
	if batchLimit <= 0 || batchLimit > defaultBatchLimit {
		batchLimit = defaultBatchLimit
	}
	return &casClient{
		instance:   instance,
		cas:        repb.NewContentAddressableStorageClient(conn),
		bs:         bspb.NewByteStreamClient(conn),
		batchLimit: batchLimit,
	}
}

func digestKey(d *repb.Digest) string { return digestString(d) }

// readBlobs reads the distinct blobs of digests and calls fn with each one's
// verified bytes, a batch at a time (so that memory stays bounded).
func (c *casClient) readBlobs(ctx context.Context, digests []*repb.Digest, fn func(*repb.Digest, []byte) error) error {
	seen := map[string]bool{}
	var batch []*repb.Digest
	var batchSize int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := c.readBatch(ctx, batch, fn)
		batch, batchSize = nil, 0
		return err
	}
	for _, d := range digests {
		if err := checkDigest(d); err != nil {
			return err
		}
		if seen[digestKey(d)] {
			continue
		}
		seen[digestKey(d)] = true
		switch {
		case d.SizeBytes == 0:
			if err := verifyBlob(d, nil); err != nil {
				return err
			}
			if err := fn(d, nil); err != nil {
				return err
			}
		case d.SizeBytes > c.batchLimit:
			data, err := c.readStream(ctx, d)
			if err != nil {
				return err
			}
			if err := fn(d, data); err != nil {
				return err
			}
		default:
			if batchSize+d.SizeBytes > c.batchLimit {
				if err := flush(); err != nil {
					return err
				}
			}
			batch = append(batch, d)
			batchSize += d.SizeBytes
		}
	}
	return flush()
}

func (c *casClient) readBatch(ctx context.Context, digests []*repb.Digest, fn func(*repb.Digest, []byte) error) error {
	resp, err := c.cas.BatchReadBlobs(ctx, &repb.BatchReadBlobsRequest{InstanceName: c.instance, Digests: digests})
	if err != nil {
		return fmt.Errorf("BatchReadBlobs: %w", err)
	}
	got := map[string]bool{}
	for _, r := range resp.Responses {
		code := codes.Code(r.GetStatus().GetCode())
		if code == codes.NotFound {
			return &missingBlobError{digest: r.Digest}
		}
		if code != codes.OK {
			return status.Errorf(code, "reading blob %s: %s", digestString(r.Digest), r.GetStatus().GetMessage())
		}
		if err := checkDigest(r.Digest); err != nil {
			return fmt.Errorf("BatchReadBlobs answered for %w", err)
		}
		if err := verifyBlob(r.Digest, r.Data); err != nil {
			return err
		}
		got[digestKey(r.Digest)] = true
		if err := fn(r.Digest, r.Data); err != nil {
			return err
		}
	}
	for _, d := range digests {
		if !got[digestKey(d)] {
			return fmt.Errorf("BatchReadBlobs did not answer for blob %s", digestString(d))
		}
	}
	return nil
}

func (c *casClient) resourceName(d *repb.Digest) string {
	name := fmt.Sprintf("blobs/%s/%d", d.Hash, d.SizeBytes)
	if c.instance != "" {
		name = c.instance + "/" + name
	}
	return name
}

// streamTo copies blob d from ByteStream into w, checking its digest.
func (c *casClient) streamTo(ctx context.Context, d *repb.Digest, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.bs.Read(ctx, &bspb.ReadRequest{ResourceName: c.resourceName(d)})
	if err != nil {
		return fmt.Errorf("ByteStream.Read %s: %w", digestString(d), err)
	}
	hw := newHashingWriter(w)
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if status.Code(err) == codes.NotFound {
			return &missingBlobError{digest: d}
		}
		if err != nil {
			return fmt.Errorf("ByteStream.Read %s: %w", digestString(d), err)
		}
		if hw.size+int64(len(msg.Data)) > d.SizeBytes {
			// More bytes than the digest names: corrupt, and no need to read on.
			hw.size += int64(len(msg.Data))
			return &corruptBlobError{want: d, gotHash: "(not computed: too long)", gotSize: hw.size}
		}
		if _, err := hw.Write(msg.Data); err != nil {
			return err
		}
	}
	return hw.verify(d)
}

func (c *casClient) readStream(ctx context.Context, d *repb.Digest) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(d.SizeBytes))
	if err := c.streamTo(ctx, d, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readBlobToFile writes blob d to a new file at path; a corrupt blob leaves
// no file behind.
func (c *casClient) readBlobToFile(ctx context.Context, d *repb.Digest, path string, mode os.FileMode) (err error) {
	if err := checkDigest(d); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	return c.streamTo(ctx, d, f)
}

// readMessage reads blob d and parses it as m.
func (c *casClient) readMessage(ctx context.Context, d *repb.Digest, m proto.Message) error {
	var data []byte
	err := c.readBlobs(ctx, []*repb.Digest{d}, func(_ *repb.Digest, b []byte) error {
		data = b
		return nil
	})
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(data, m); err != nil {
		return fmt.Errorf("blob %s is not a %s: %w", digestString(d), m.ProtoReflect().Descriptor().FullName(), err)
	}
	return nil
}

// uploadBlob is one blob to upload: its bytes, or the file that holds them.
type uploadBlob struct {
	digest *repb.Digest
	data   []byte
	path   string
}

// upload makes sure every blob is in the CAS: it asks which are missing and
// sends those, small ones in batches and large ones through ByteStream.
func (c *casClient) upload(ctx context.Context, blobs []uploadBlob) error {
	byKey := map[string]uploadBlob{}
	var digests []*repb.Digest
	for _, b := range blobs {
		if b.digest.SizeBytes == 0 {
			continue // the empty blob is always present
		}
		if _, ok := byKey[digestKey(b.digest)]; !ok {
			byKey[digestKey(b.digest)] = b
			digests = append(digests, b.digest)
		}
	}
	if len(digests) == 0 {
		return nil
	}
	missing, err := c.cas.FindMissingBlobs(ctx, &repb.FindMissingBlobsRequest{InstanceName: c.instance, BlobDigests: digests})
	if err != nil {
		return fmt.Errorf("FindMissingBlobs: %w", err)
	}
	var batch []*repb.BatchUpdateBlobsRequest_Request
	var batchSize int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		resp, err := c.cas.BatchUpdateBlobs(ctx, &repb.BatchUpdateBlobsRequest{InstanceName: c.instance, Requests: batch})
		batch, batchSize = nil, 0
		if err != nil {
			return fmt.Errorf("BatchUpdateBlobs: %w", err)
		}
		for _, r := range resp.Responses {
			if code := codes.Code(r.GetStatus().GetCode()); code != codes.OK {
				return status.Errorf(code, "uploading blob %s: %s", digestString(r.Digest), r.GetStatus().GetMessage())
			}
		}
		return nil
	}
	for _, d := range missing.MissingBlobDigests {
		b, ok := byKey[digestKey(d)]
		if !ok {
			return fmt.Errorf("FindMissingBlobs named blob %s, which was not asked about", digestString(d))
		}
		if d.SizeBytes > c.batchLimit {
			if err := c.writeStream(ctx, b); err != nil {
				return err
			}
			continue
		}
		data := b.data
		if data == nil && b.path != "" {
			if data, err = os.ReadFile(b.path); err != nil {
				return err
			}
		}
		if batchSize+d.SizeBytes > c.batchLimit {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, &repb.BatchUpdateBlobsRequest_Request{Digest: d, Data: data})
		batchSize += d.SizeBytes
	}
	return flush()
}

func (c *casClient) writeStream(ctx context.Context, b uploadBlob) error {
	var r io.Reader
	if b.data != nil {
		r = bytes.NewReader(b.data)
	} else {
		f, err := os.Open(b.path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.bs.Write(ctx)
	if err != nil {
		return fmt.Errorf("ByteStream.Write %s: %w", digestString(b.digest), err)
	}
	name := fmt.Sprintf("uploads/%s/blobs/%s/%d", newUUID(), b.digest.Hash, b.digest.SizeBytes)
	if c.instance != "" {
		name = c.instance + "/" + name
	}
	buf := make([]byte, byteStreamChunk)
	var offset int64
	for {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return rerr
		}
		last := offset+int64(n) >= b.digest.SizeBytes
		req := &bspb.WriteRequest{WriteOffset: offset, Data: buf[:n], FinishWrite: last}
		if offset == 0 {
			req.ResourceName = name
		}
		if err := stream.Send(req); err != nil {
			if err == io.EOF {
				break // the server already has the blob and ended the stream
			}
			return fmt.Errorf("ByteStream.Write %s: %w", digestString(b.digest), err)
		}
		offset += int64(n)
		if last {
			break
		}
		if n == 0 {
			return fmt.Errorf("ByteStream.Write %s: source ended after %d bytes", digestString(b.digest), offset)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("ByteStream.Write %s: %w", digestString(b.digest), err)
	}
	if resp.CommittedSize != b.digest.SizeBytes {
		return fmt.Errorf("ByteStream.Write %s: the server committed %d bytes", digestString(b.digest), resp.CommittedSize)
	}
	return nil
}

func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// missingBlobError: the CAS does not have a blob the action needs.
type missingBlobError struct{ digest *repb.Digest }

func (e *missingBlobError) Error() string {
	return fmt.Sprintf("blob %s is not in the CAS", digestString(e.digest))
}

// isCorrupt says whether err comes from a blob that failed its digest check.
func isCorrupt(err error) bool { return errors.Is(err, errCorruptBlob) }
