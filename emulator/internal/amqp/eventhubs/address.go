package eventhubs

import (
	"fmt"
	"strconv"
	"strings"
)

// nodeKind is what a link's address names.
type nodeKind int

// Nodes a link may attach to.
const (
	nodeCBS        nodeKind = iota + 1 // $cbs: put-token
	nodeManagement                     // $management: READ
	nodeHub                            // <hub> or <hub>/Partitions/<n>: sends
	nodePartition                      // <hub>/ConsumerGroups/<g>/Partitions/<n>: receives
)

// Node addresses.
const (
	addrCBS        = "$cbs"
	addrManagement = "$management"
)

// address is a parsed link address.
type address struct {
	kind      nodeKind
	hub       string
	group     string
	partition int // -1 when none
}

// parseAddress parses the address of a link; sending tells whether the
// client sends on it. An address may be a bare path or a URI whose path is
// the entity path.
func parseAddress(raw string, sending bool) (address, error) {
	p := raw
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j+1:]
		}
	}
	p = strings.Trim(p, "/")
	switch p {
	case addrCBS:
		return address{kind: nodeCBS, partition: -1}, nil
	case addrManagement:
		return address{kind: nodeManagement, partition: -1}, nil
	case "":
		return address{}, fmt.Errorf("link address is empty")
	}
	seg := strings.Split(p, "/")
	switch {
	case sending && len(seg) == 1:
		return address{kind: nodeHub, hub: seg[0], partition: -1}, nil
	case sending && len(seg) == 3 && strings.EqualFold(seg[1], "Partitions"):
		n, err := partitionNumber(seg[2])
		return address{kind: nodeHub, hub: seg[0], partition: n}, err
	case !sending && len(seg) == 5 && strings.EqualFold(seg[1], "ConsumerGroups") && strings.EqualFold(seg[3], "Partitions"):
		n, err := partitionNumber(seg[4])
		return address{kind: nodePartition, hub: seg[0], group: seg[2], partition: n}, err
	}
	if sending {
		return address{}, fmt.Errorf("address %q is neither <hub> nor <hub>/Partitions/<n>", raw)
	}
	return address{}, fmt.Errorf("address %q is not <hub>/ConsumerGroups/<group>/Partitions/<n>", raw)
}

// partitionNumber parses a partition id.
func partitionNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<20 {
		return 0, fmt.Errorf("partition id %q is not a partition number", s)
	}
	return n, nil
}
