package broker

import "encoding/binary"

// keyPartition is the partition (of n) Kafka's default partitioner gives
// key: the positive part of the key's murmur2 hash, modulo n, as the Java
// client and franz-go's StickyKeyPartitioner compute it. It keeps no
// state, so calls share it.
func keyPartition(key []byte, n int) int {
	return int(murmur2(key)&0x7fffffff) % n
}

// murmur2 is the 32-bit MurmurHash2 with Kafka's seed, over data as
// little-endian words, then the tail bytes.
func murmur2(data []byte) uint32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
	)
	h := uint32(seed) ^ uint32(len(data))
	words := len(data) / 4
	for i := range words {
		k := binary.LittleEndian.Uint32(data[4*i:])
		k *= m
		k ^= k >> 24
		k *= m
		h = h*m ^ k
	}
	tail := data[4*words:]
	switch len(tail) {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
