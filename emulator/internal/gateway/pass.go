package gateway

import (
	"io"
	"sync"
)

// passChunk is the most of a forwarded response read and written at once.
const passChunk = 256 << 10

// passBuffers are the buffers responses are forwarded through, held only
// while one is copied.
var passBuffers = sync.Pool{New: func() any { b := make([]byte, passChunk); return &b }}

// pass copies the next n bytes of the upstream connection to the client.
// Past what the upstream reader has buffered, it reads as much as has
// arrived, up to passChunk, and writes it on in one piece: a large fetch
// response crosses the gateway in a few reads and writes rather than one
// per 32 KiB (io.Copy's buffer), which cost the consumer a wake-up each.
func (s *session) pass(n int) error {
	if k := min(n, s.ur.Buffered()); k > 0 { // what came with the size: no buffer needed
		head, _ := s.ur.Peek(k)
		if _, err := s.cw.Write(head); err != nil {
			return err
		}
		_, _ = s.ur.Discard(k)
		n -= k
	}
	if n == 0 {
		return nil
	}
	bp := passBuffers.Get().(*[]byte)
	defer passBuffers.Put(bp)
	buf := *bp
	for n > 0 {
		k, err := s.ur.Read(buf[:min(n, len(buf))])
		if k > 0 {
			if _, werr := s.cw.Write(buf[:k]); werr != nil {
				return werr
			}
			n -= k
		}
		if err != nil && n > 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}
