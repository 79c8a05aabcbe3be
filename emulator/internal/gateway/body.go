package gateway

import "io"

// frameChunk is the buffer a frame body starts with; it doubles, up to the
// declared size, each time the bytes that came fill it.
const frameChunk = 64 << 10

// readBody reads exactly n bytes from r into a buffer that grows with the
// bytes read, so that holding a connection whose frame is declared large but
// arrives slowly (or never) costs at most about twice what it sent.
func readBody(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, frameChunk))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), len(buf)+min(n-len(buf), len(buf)))
			copy(grown, buf)
			buf = grown
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}
