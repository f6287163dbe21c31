package main

// NPB prints "Time in seconds" to two decimals: at class A a 0.35 s run
// is known to 1.4%, and one step of 0.01 s moves RE by 3 points. Its
// "Mop/s total" is the kernel's fixed operation count W over the same time
// unrounded, printed to six or more significant digits, so W / Mop/s is the
// run's time to that precision. W is the same for every run of a row, real
// and predicted alike: the ratio of two runs' times is the inverse ratio of
// their Mop/s exactly, whatever W is taken to be. The harness takes W as
// the median over the row's runs of seconds x Mop/s; its error (the
// rounding of the two-decimal times, averaged over the runs) scales every
// time of the row alike and leaves RE exact.

// times returns the row's real and predicted times, from Mop/s when every
// run printed it, and the decimals they deserve: 3 from Mop/s, else NPB's 2.
func (row row) times() (real, pred []float64, digits int) {
	if len(row.RealMops) != len(row.Real) || len(row.PredMops) != len(row.Pred) || len(row.Real) == 0 || len(row.Pred) == 0 {
		return row.Real, row.Pred, 2
	}
	var work []float64
	for i, m := range row.RealMops {
		if !(m > 0) {
			return row.Real, row.Pred, 2
		}
		work = append(work, row.Real[i]*m)
	}
	for i, m := range row.PredMops {
		if !(m > 0) {
			return row.Real, row.Pred, 2
		}
		work = append(work, row.Pred[i]*m)
	}
	w := summarize(work).Median
	if !(w > 0) {
		return row.Real, row.Pred, 2
	}
	at := func(mops []float64) []float64 {
		out := make([]float64, len(mops))
		for i, m := range mops {
			out[i] = w / m
		}
		return out
	}
	return at(row.RealMops), at(row.PredMops), 3
}
