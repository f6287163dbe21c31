package main

import "sort"

// spread summarizes the times of one side (real or predicted) of a row.
type spread struct {
	N                int
	Median, Min, Max float64
}

// summarize returns the median, minimum and maximum of xs; the median of
// an even count is the mean of the two middle values. Empty xs gives N 0.
func summarize(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{N: n, Median: med, Min: s[0], Max: s[n-1]}
}

// relativeError is the prediction's relative error, RE = predicted / real
// - 1 (the definition of the VACED-SIM paper, Sect. 5.2): 0.05 is a
// prediction 5% too long, -0.05 one 5% too short. ok is false when real is
// not positive (no ratio to take).
func relativeError(predicted, real float64) (re float64, ok bool) {
	if !(real > 0) {
		return 0, false
	}
	return predicted/real - 1, true
}
