package state

import "time"

// toJSON returns t as Pulumi records it (nil when every bound is 0).
func (t CustomTimeouts) toJSON() *customTimeoutsJSON {
	if t == (CustomTimeouts{}) {
		return nil
	}
	return &customTimeoutsJSON{Create: t.Create.Seconds(), Update: t.Update.Seconds(), Delete: t.Delete.Seconds()}
}

// fromJSON reads what toJSON wrote (zero for nil).
func (j *customTimeoutsJSON) fromJSON() CustomTimeouts {
	if j == nil {
		return CustomTimeouts{}
	}
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	return CustomTimeouts{Create: sec(j.Create), Update: sec(j.Update), Delete: sec(j.Delete)}
}
