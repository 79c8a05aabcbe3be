package pipeline

// parseExpand reads {"fields": [F...] | "field": F, "ignoreMissingOrEmpty": B}.
func parseExpand(o obj, name string) (Operator, error) {
	fields, err := o.strList("fields")
	if err != nil {
		return nil, err
	}
	one, err := o.str("field", false)
	if err != nil {
		return nil, err
	}
	if one != "" {
		if len(fields) > 0 {
			return nil, invalid(join(o.path, "field"), "give fields or field, not both")
		}
		fields = []string{one}
	}
	e := Expand{Name: name, Fields: fields, IgnoreMissingOrEmpty: true}
	if raw, ok := o.m["ignoreMissingOrEmpty"]; ok && raw != nil {
		b, ok := raw.(bool)
		if !ok {
			return nil, invalid(join(o.path, "ignoreMissingOrEmpty"), "want true or false, got %s", jsonKind(raw))
		}
		e.IgnoreMissingOrEmpty = b
	}
	return e, nil
}
