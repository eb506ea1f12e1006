package install

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
)

// inflateChunk is the size of the blocks the decompressing goroutine hands
// to the extractor.
const inflateChunk = 256 << 10

// errRatio is what the decompressing goroutine reports when the stream
// expands more than MaxRatio:1; the extractor, which knows the entry being
// read, turns it into an *EntryError.
var errRatio = errors.New("compression ratio exceeded")

// inflater decompresses a gzip stream on its own goroutine, a few blocks
// ahead of the reader, so that writing files and decompressing overlap.
// Read is called from one goroutine only (the extractor's).
type inflater struct {
	blocks chan block  // decompressed blocks, in order
	free   chan []byte // blocks the reader is done with
	done   chan struct{}
	wg     sync.WaitGroup
	err    error // the producer's final error, read after blocks is closed
	cur    block
	off    int
	out    int64 // decompressed bytes returned by Read
	stop   sync.Once
}

// block is a run of decompressed bytes and the count of compressed bytes
// read when it was complete.
type block struct {
	b  []byte
	cn int64
}

// compressedCounter counts the compressed bytes read; it is written by the
// decompressing goroutine and read by the extractor for progress.
type compressedCounter struct {
	r io.Reader
	n atomic.Int64
}

func (c *compressedCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// newInflater starts decompressing src. The header is read before it
// returns, so a stream that is not gzip fails here.
func newInflater(src *compressedCounter) (*inflater, error) {
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, err
	}
	in := &inflater{blocks: make(chan block, 4), free: make(chan []byte, 6), done: make(chan struct{})}
	in.wg.Add(1)
	go in.run(zr, src)
	return in, nil
}

func (in *inflater) run(zr *gzip.Reader, src *compressedCounter) {
	defer in.wg.Done()
	defer close(in.blocks)
	defer zr.Close()
	for {
		var b []byte
		select {
		case b = <-in.free:
		default:
			b = make([]byte, inflateChunk)
		}
		n, err := fill(zr, b[:cap(b)])
		if n > 0 {
			select {
			case in.blocks <- block{b[:n], src.n.Load()}:
			case <-in.done:
				return
			}
		}
		switch {
		case err != nil:
			in.err = err
			return
		}
	}
}

// fill reads into b until it is full or r fails; unlike io.ReadFull it
// returns r's own error (io.EOF at the end of the stream, whatever was read).
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Read returns the decompressed bytes in order; at the end, the
// decompressor's error (io.EOF on a complete stream). It fails with
// errRatio once the bytes returned are more than MaxRatio times the
// compressed bytes read to make them (checked here, where the extractor
// is, so that reading ahead does not change which rule an archive breaks
// first).
func (in *inflater) Read(p []byte) (int, error) {
	for in.off == len(in.cur.b) {
		if in.cur.b != nil {
			select {
			case in.free <- in.cur.b[:cap(in.cur.b)]:
			default:
			}
			in.cur.b = nil
		}
		b, ok := <-in.blocks
		if !ok {
			return 0, in.err
		}
		in.cur, in.off = b, 0
	}
	n := copy(p, in.cur.b[in.off:])
	in.off += n
	in.out += int64(n)
	if in.out > ratioFloor && in.out > MaxRatio*in.cur.cn {
		return n, errRatio
	}
	return n, nil
}

// close stops the decompressing goroutine and waits for it, so that the
// compressed source may be read (or closed) by the caller afterwards.
func (in *inflater) close() {
	in.stop.Do(func() { close(in.done) })
	in.wg.Wait()
}
