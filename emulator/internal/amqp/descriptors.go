package amqp

import "strconv"

// Descriptor codes of the composite types (domain 0x00000000).
const (
	descOpen        uint64 = 0x10
	descBegin       uint64 = 0x11
	descAttach      uint64 = 0x12
	descFlow        uint64 = 0x13
	descTransfer    uint64 = 0x14
	descDisposition uint64 = 0x15
	descDetach      uint64 = 0x16
	descEnd         uint64 = 0x17
	descClose       uint64 = 0x18
	descError       uint64 = 0x1d
	descReceived    uint64 = 0x23
	descAccepted    uint64 = 0x24
	descRejected    uint64 = 0x25
	descReleased    uint64 = 0x26
	descModified    uint64 = 0x27
	descSource      uint64 = 0x28
	descTarget      uint64 = 0x29

	descSASLMechanisms uint64 = 0x40
	descSASLInit       uint64 = 0x41
	descSASLChallenge  uint64 = 0x42
	descSASLResponse   uint64 = 0x43
	descSASLOutcome    uint64 = 0x44

	descHeader                uint64 = 0x70
	descDeliveryAnnotations   uint64 = 0x71
	descMessageAnnotations    uint64 = 0x72
	descProperties            uint64 = 0x73
	descApplicationProperties uint64 = 0x74
	descData                  uint64 = 0x75
	descAMQPSequence          uint64 = 0x76
	descAMQPValue             uint64 = 0x77
	descFooter                uint64 = 0x78
)

// descriptorNames maps each code to its symbolic descriptor.
var descriptorNames = map[uint64]Symbol{
	descOpen: "amqp:open:list", descBegin: "amqp:begin:list",
	descAttach: "amqp:attach:list", descFlow: "amqp:flow:list",
	descTransfer: "amqp:transfer:list", descDisposition: "amqp:disposition:list",
	descDetach: "amqp:detach:list", descEnd: "amqp:end:list",
	descClose: "amqp:close:list", descError: "amqp:error:list",
	descReceived: "amqp:received:list", descAccepted: "amqp:accepted:list",
	descRejected: "amqp:rejected:list", descReleased: "amqp:released:list",
	descModified: "amqp:modified:list", descSource: "amqp:source:list",
	descTarget:         "amqp:target:list",
	descSASLMechanisms: "amqp:sasl-mechanisms:list", descSASLInit: "amqp:sasl-init:list",
	descSASLChallenge: "amqp:sasl-challenge:list", descSASLResponse: "amqp:sasl-response:list",
	descSASLOutcome: "amqp:sasl-outcome:list",
	descHeader:      "amqp:header:list", descDeliveryAnnotations: "amqp:delivery-annotations:map",
	descMessageAnnotations: "amqp:message-annotations:map", descProperties: "amqp:properties:list",
	descApplicationProperties: "amqp:application-properties:map", descData: "amqp:data:binary",
	descAMQPSequence: "amqp:amqp-sequence:list", descAMQPValue: "amqp:amqp-value:*",
	descFooter: "amqp:footer:map",
}

// descriptorCodes maps each symbolic descriptor to its code.
var descriptorCodes = func() map[Symbol]uint64 {
	m := make(map[Symbol]uint64, len(descriptorNames))
	for c, n := range descriptorNames {
		m[n] = c
	}
	return m
}()

// descriptorCode returns the numeric code of a decoded descriptor (a
// uint64, or a known symbolic name).
func descriptorCode(d any) (uint64, bool) {
	switch d := d.(type) {
	case uint64:
		return d, true
	case Symbol:
		c, ok := descriptorCodes[d]
		return c, ok
	}
	return 0, false
}

// descriptorName returns the short name of a code for messages: "open",
// "sasl-init", "header", or the code in hex.
func descriptorName(code uint64) string {
	n, ok := descriptorNames[code]
	if !ok {
		return "0x" + strconv.FormatUint(code, 16)
	}
	s := string(n[len("amqp:"):])
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i]
		}
	}
	return s
}
