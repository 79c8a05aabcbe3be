package amqp

// compound decodes a list, map or array whose size and count fields are
// width bytes wide. The size covers the count field and the elements.
func (r *reader) compound(c byte, width int) (any, error) {
	kind := kindOf(c)
	if err := r.enter(kind); err != nil {
		return nil, err
	}
	defer r.leave()
	size, err := r.length(width, kind, "size")
	if err != nil {
		return nil, err
	}
	if size > r.remaining() {
		return nil, malformed("decode %s: size %d exceeds remaining %d bytes", kind, size, r.remaining())
	}
	if size < width {
		return nil, malformed("decode %s: size %d is smaller than its count field", kind, size)
	}
	body, _ := r.take(size, kind)
	sub := reader{buf: body, depth: r.depth, alias: r.alias}
	count, _ := sub.length(width, kind, "count")
	if count > sub.remaining() {
		return nil, malformed("decode %s: count %d exceeds remaining %d bytes", kind, count, sub.remaining())
	}
	var v any
	switch kind {
	case "list":
		v, err = sub.listItems(count)
	case "map":
		v, err = sub.mapItems(count)
	default:
		v, err = sub.arrayItems(count)
	}
	if err != nil {
		return nil, err
	}
	if sub.remaining() != 0 {
		return nil, malformed("decode %s: %d bytes left after %d elements", kind, sub.remaining(), count)
	}
	return v, nil
}

// kindOf names the compound kind of format code c.
func kindOf(c byte) string {
	switch c {
	case codeList8, codeList32:
		return "list"
	case codeMap8, codeMap32:
		return "map"
	}
	return "array"
}

// listItems decodes count values.
func (r *reader) listItems(count int) (any, error) {
	items := make([]any, count)
	for i := range items {
		v, err := r.value()
		if err != nil {
			return nil, wrapf(err, "decode list element %d", i)
		}
		items[i] = v
	}
	return items, nil
}

// mapItems decodes count values as count/2 key/value pairs.
func (r *reader) mapItems(count int) (any, error) {
	if count%2 != 0 {
		return nil, malformed("decode map: odd element count %d", count)
	}
	m := make(Map, count/2)
	for i := range m {
		k, err := r.value()
		if err != nil {
			return nil, wrapf(err, "decode map key %d", i)
		}
		v, err := r.value()
		if err != nil {
			return nil, wrapf(err, "decode map value %d", i)
		}
		m[i] = MapEntry{Key: k, Value: v}
	}
	return m, nil
}

// arrayItems decodes the element constructor and count elements.
func (r *reader) arrayItems(count int) (any, error) {
	c, err := r.take(1, "array constructor")
	if err != nil {
		return nil, err
	}
	code, desc := c[0], any(nil)
	if code == codeDescribed {
		if desc, err = r.descriptor(); err != nil {
			return nil, wrapf(err, "decode array")
		}
		if c, err = r.take(1, "array constructor"); err != nil {
			return nil, err
		}
		code = c[0]
	}
	if code == codeDescribed {
		return nil, malformed("decode array: nested described constructor")
	}
	if w, ok := fixedWidth(code); ok && w == 0 && count > 0 {
		// Zero-width elements would let a few bytes stand for billions.
		return nil, malformed("decode array: %d elements of zero-width type %s", count, typeName(code))
	} else if ok && count*w > r.remaining() {
		return nil, malformed("decode array: %d %s elements need %d bytes, %d remaining",
			count, typeName(code), count*w, r.remaining())
	}
	items := make(Array, count)
	for i := range items {
		v, err := r.primitive(code)
		if err != nil {
			return nil, wrapf(err, "decode array element %d", i)
		}
		if desc != nil {
			v = Described{Descriptor: desc, Value: v}
		}
		items[i] = v
	}
	return items, nil
}
