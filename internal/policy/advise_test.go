package policy

import "testing"

// What waiting bindings conclude once no plan has started for a while: nothing while another
// plan runs (it may be their policy's); "nowhere" when fewer of them wait than Terraform plans
// at once (it had a free slot and started nothing); "cannot tell" when they may fill all its
// slots, so that no policy could start.
func TestQuietOutcome(t *testing.T) {
	cases := []struct {
		waiting, inFlight int64
		want              plannedOutcome
		quiet             bool
	}{
		{1, 2, 0, false},
		{9, 10, 0, false},
		{1, 1, plannedNowhere, true},
		{9, 9, plannedNowhere, true},
		{10, 10, plannedUnknown, true},
		{12, 12, plannedUnknown, true},
		{10, 11, 0, false},
	}
	for _, c := range cases {
		got, quiet := quietOutcome(c.waiting, c.inFlight)
		if quiet != c.quiet || (quiet && got != c.want) {
			t.Errorf("quietOutcome(%d waiting, %d in flight) = %d, %v; want %d, %v", c.waiting, c.inFlight, got, quiet, c.want, c.quiet)
		}
	}
}
