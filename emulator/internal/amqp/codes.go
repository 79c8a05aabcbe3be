package amqp

// Format codes of the AMQP 1.0 type system (part 1, section 1.6).
const (
	codeDescribed  byte = 0x00
	codeNull       byte = 0x40
	codeBool       byte = 0x56
	codeTrue       byte = 0x41
	codeFalse      byte = 0x42
	codeUbyte      byte = 0x50
	codeUshort     byte = 0x60
	codeUint       byte = 0x70
	codeSmallUint  byte = 0x52
	codeUint0      byte = 0x43
	codeUlong      byte = 0x80
	codeSmallUlong byte = 0x53
	codeUlong0     byte = 0x44
	codeByte       byte = 0x51
	codeShort      byte = 0x61
	codeInt        byte = 0x71
	codeSmallInt   byte = 0x54
	codeLong       byte = 0x81
	codeSmallLong  byte = 0x55
	codeFloat      byte = 0x72
	codeDouble     byte = 0x82
	codeDecimal32  byte = 0x74
	codeDecimal64  byte = 0x84
	codeDecimal128 byte = 0x94
	codeChar       byte = 0x73
	codeTimestamp  byte = 0x83
	codeUUID       byte = 0x98
	codeVbin8      byte = 0xa0
	codeVbin32     byte = 0xb0
	codeStr8       byte = 0xa1
	codeStr32      byte = 0xb1
	codeSym8       byte = 0xa3
	codeSym32      byte = 0xb3
	codeList0      byte = 0x45
	codeList8      byte = 0xc0
	codeList32     byte = 0xd0
	codeMap8       byte = 0xc1
	codeMap32      byte = 0xd1
	codeArray8     byte = 0xe0
	codeArray32    byte = 0xf0
)

var codeNames = [256]string{
	codeDescribed: "described", codeNull: "null", codeBool: "boolean",
	codeTrue: "true", codeFalse: "false", codeUbyte: "ubyte",
	codeUshort: "ushort", codeUint: "uint", codeSmallUint: "smalluint",
	codeUint0: "uint0", codeUlong: "ulong", codeSmallUlong: "smallulong",
	codeUlong0: "ulong0", codeByte: "byte", codeShort: "short",
	codeInt: "int", codeSmallInt: "smallint", codeLong: "long",
	codeSmallLong: "smalllong", codeFloat: "float", codeDouble: "double",
	codeDecimal32: "decimal32", codeDecimal64: "decimal64",
	codeDecimal128: "decimal128", codeChar: "char",
	codeTimestamp: "timestamp", codeUUID: "uuid", codeVbin8: "vbin8",
	codeVbin32: "vbin32", codeStr8: "str8", codeStr32: "str32",
	codeSym8: "sym8", codeSym32: "sym32", codeList0: "list0",
	codeList8: "list8", codeList32: "list32", codeMap8: "map8",
	codeMap32: "map32", codeArray8: "array8", codeArray32: "array32",
}

// fixedWidth returns the data width of a fixed-width format code, and
// false for variable-width, compound and unknown codes.
func fixedWidth(code byte) (int, bool) {
	switch code {
	case codeNull, codeTrue, codeFalse, codeUint0, codeUlong0, codeList0:
		return 0, true
	case codeBool, codeUbyte, codeSmallUint, codeSmallUlong, codeByte,
		codeSmallInt, codeSmallLong:
		return 1, true
	case codeUshort, codeShort:
		return 2, true
	case codeUint, codeInt, codeFloat, codeDecimal32, codeChar:
		return 4, true
	case codeUlong, codeLong, codeDouble, codeDecimal64, codeTimestamp:
		return 8, true
	case codeDecimal128, codeUUID:
		return 16, true
	}
	return 0, false
}
