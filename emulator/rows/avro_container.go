package rows

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/golang/snappy"
	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/zstd"
)

// container is an object container file being read: its schema, codec
// and sync marker, and the reader past its header.
type container struct {
	r      *avro.Reader
	schema avro.Schema
	codec  string
	sync   [16]byte
}

// readContainerHeader reads the magic, the metadata (avro.schema and
// avro.codec) and the sync marker of container file b.
func readContainerHeader(b []byte) (*container, error) {
	c := &container{r: newAvroReader(b[len(avroMagic):]), codec: "null"}
	meta := map[string][]byte{}
	err := readBlocks(c.r, func() error {
		k := c.r.ReadString()
		meta[k] = c.r.ReadBytes()
		return nil
	})
	c.r.Read(c.sync[:])
	if err == nil {
		err = c.r.Error
	}
	if err != nil {
		return nil, fmt.Errorf("read container header: %w", err)
	}
	text, ok := meta["avro.schema"]
	if !ok {
		return nil, errors.New("the container header has no avro.schema")
	}
	s, err := avro.ParseBytesWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("parse the container's schema: %w", err)
	}
	c.schema = s
	if codec, ok := meta["avro.codec"]; ok && len(codec) > 0 {
		c.codec = string(codec)
	}
	switch c.codec {
	case "null", "deflate", "snappy", "zstandard":
	default:
		return nil, fmt.Errorf("the container's codec %q is not one Avro defines", c.codec)
	}
	return c, nil
}

// block reads the next data block: its object count and its objects'
// bytes, decompressed, then the sync marker.
func (c *container) block() (blockData, error) {
	count := c.r.ReadLong()
	data := c.r.ReadBytes()
	var sync [16]byte
	c.r.Read(sync[:])
	if c.r.Error != nil {
		return blockData{}, fmt.Errorf("read container block: %w", c.r.Error)
	}
	if count < 0 {
		return blockData{}, fmt.Errorf("container block counts %d objects", count)
	}
	if sync != c.sync {
		return blockData{}, errors.New("container block does not end with the file's sync marker")
	}
	raw, err := decompress(c.codec, data)
	if err != nil {
		return blockData{}, fmt.Errorf("decompress container block (%s): %w", c.codec, err)
	}
	return blockData{count: count, data: raw}, nil
}

// blockData is a block's object count and its objects' bytes.
type blockData struct {
	count int64
	data  []byte
}

// appendBlockRows appends the rows of a block's objects of schema s.
func appendBlockRows(out []Row, b blockData, s avro.Schema) ([]Row, error) {
	if b.count > int64(len(b.data))+1 {
		return nil, fmt.Errorf("container block counts %d objects in %d bytes", b.count, len(b.data))
	}
	r := newAvroReader(b.data)
	for i := int64(0); i < b.count; i++ {
		v, err := readAvro(r, s, 0)
		if err != nil {
			return nil, fmt.Errorf("container record %d: %w", len(out)+1, err)
		}
		out = append(out, avroRow(v, s))
	}
	if r.Peek(); r.Error == nil {
		return nil, errors.New("bytes left after a container block's objects")
	}
	return out, nil
}

// decompress undoes a container codec, reading at most an event's size.
func decompress(codec string, data []byte) ([]byte, error) {
	switch codec {
	case "deflate":
		return readLimited(flate.NewReader(bytes.NewReader(data)))
	case "snappy":
		return unsnappy(data)
	case "zstandard":
		d, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxEventBytes*4))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return readLimited(d)
	}
	return data, nil
}

// unsnappy undoes Avro's snappy codec: a snappy block and the CRC-32 of
// the uncompressed bytes, big-endian.
func unsnappy(data []byte) ([]byte, error) {
	if len(data) < 4 {
		return nil, errors.New("snappy block without its checksum")
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if n, err := snappy.DecodedLen(body); err != nil {
		return nil, err
	} else if n > MaxEventBytes*4 {
		return nil, fmt.Errorf("snappy block of %d bytes uncompressed", n)
	}
	out, err := snappy.Decode(nil, body)
	if err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(out) != sum {
		return nil, errors.New("snappy block checksum mismatch")
	}
	return out, nil
}

// readLimited reads r to its end, refusing more than four event sizes.
func readLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxEventBytes*4+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxEventBytes*4 {
		return nil, errors.New("block decompresses to more than four event sizes")
	}
	return b, nil
}
