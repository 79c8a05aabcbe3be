package pipeline

// validateASA checks a sliding, session or snapshot window: only the
// members its kind has.
func (w Window) validateASA(path string) error {
	if w.Hop != 0 || w.Offset != 0 {
		return invalid(join(path, "hop"), "hop and offset are for tumbling and hopping windows")
	}
	if err := checkDuration(join(path, "allowedLateness"), w.AllowedLateness, false); err != nil {
		return err
	}
	if w.Kind != Session && (w.Timeout != 0 || w.MaxDuration != 0 || w.PartitionBy != "") {
		return invalid(join(path, "timeout"), "timeout, maxDuration and partitionBy are for session windows")
	}
	switch w.Kind {
	case Sliding:
		return checkDuration(join(path, "duration"), w.Duration, true)
	case Snapshot:
		if w.Duration != 0 {
			return invalid(join(path, "duration"), "a snapshot window has no duration: it groups the events of one instant")
		}
		return nil
	}
	if w.Duration != 0 {
		return invalid(join(path, "duration"), "a session window has timeout and maxDuration, not duration")
	}
	if err := checkDuration(join(path, "timeout"), w.Timeout, true); err != nil {
		return err
	}
	if err := checkDuration(join(path, "maxDuration"), w.MaxDuration, true); err != nil {
		return err
	}
	if w.Timeout > w.MaxDuration {
		return invalid(join(path, "timeout"), "timeout %v is longer than maxDuration %v", w.Timeout, w.MaxDuration)
	}
	return nil
}
