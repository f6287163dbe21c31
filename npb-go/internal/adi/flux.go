package adi

// The flux loops of fluxRow, one per equation (the energy's in two parts,
// so that the AVX2 form has registers for every array): each updates r
// over its length, in AVX2 four points at a time where the CPU has it and
// in Go for the rest. The Go loops are the reference's expressions.

// vecPrefix is how many leading points of an n-point loop the AVX2 form
// does: the largest multiple of 4, or none without AVX2.
func vecPrefix(n int) int {
	if !haveAVX2 {
		return 0
	}
	return n &^ 3
}

// fluxDensity: r += d0*(up-2u+um) - t2*(wp-wm).
func fluxDensity(r, u, um, up, wm, wp []float64, d0, t2 float64) {
	n := len(r)
	u, um, up, wm, wp = u[:n], um[:n], up[:n], wm[:n], wp[:n]
	i := vecPrefix(n)
	if i > 0 {
		fluxDensityAVX2(&r[0], &u[0], &um[0], &up[0], &wm[0], &wp[0], i, d0, t2)
	}
	for ; i < n; i++ {
		r[i] = r[i] + d0*(up[i]-2.0*u[i]+um[i]) - t2*(wp[i]-wm[i])
	}
}

// fluxMomentum, for a momentum component t across the axis of velocity
// v: r += dm*(up-2u+um) + cc*(tp-2t+tm) - t2*(up*vp-um*vm).
func fluxMomentum(r, u, um, up, t, tm, tp, vm, vp []float64, dm, cc, t2 float64) {
	n := len(r)
	u, um, up, t, tm, tp, vm, vp = u[:n], um[:n], up[:n], t[:n], tm[:n], tp[:n], vm[:n], vp[:n]
	i := vecPrefix(n)
	if i > 0 {
		fluxMomentumAVX2(&r[0], &u[0], &um[0], &up[0], &t[0], &tm[0], &tp[0], &vm[0], &vp[0], i, dm, cc, t2)
	}
	for ; i < n; i++ {
		r[i] = r[i] + dm*(up[i]-2.0*u[i]+um[i]) +
			cc*(tp[i]-2.0*t[i]+tm[i]) -
			t2*(up[i]*vp[i]-um[i]*vm[i])
	}
}

// fluxMomentumNormal, for the momentum component along the axis, with its
// pressure term: r += dm*(up-2u+um) + cc*(vp-2v+vm) -
// t2*(up*vp-um*vm + (u5p-sqp-u5m+sqm)*c2).
func fluxMomentumNormal(r, u, um, up, v, vm, vp, u5m, u5p, sqm, sqp []float64, dm, cc, t2, c2 float64) {
	n := len(r)
	u, um, up, v, vm, vp = u[:n], um[:n], up[:n], v[:n], vm[:n], vp[:n]
	u5m, u5p, sqm, sqp = u5m[:n], u5p[:n], sqm[:n], sqp[:n]
	i := vecPrefix(n)
	if i > 0 {
		fluxMomentumNormalAVX2(&r[0], &u[0], &um[0], &up[0], &v[0], &vm[0], &vp[0], &u5m[0], &u5p[0], &sqm[0], &sqp[0], i, dm, cc, t2, c2)
	}
	for ; i < n; i++ {
		r[i] = r[i] + dm*(up[i]-2.0*u[i]+um[i]) +
			cc*(vp[i]-2.0*v[i]+vm[i]) -
			t2*(up[i]*vp[i]-um[i]*vm[i]+
				(u5p[i]-sqp[i]-u5m[i]+sqm[i])*c2)
	}
}

// fluxEnergyA is the energy's first two terms: r += d4*(u5p-2u5+u5m) +
// con3*(qp-2q+qm).
func fluxEnergyA(r, u5, u5m, u5p, q, qm, qp []float64, d4, con3 float64) {
	n := len(r)
	u5, u5m, u5p, q, qm, qp = u5[:n], u5m[:n], u5p[:n], q[:n], qm[:n], qp[:n]
	i := vecPrefix(n)
	if i > 0 {
		fluxEnergyAAVX2(&r[0], &u5[0], &u5m[0], &u5p[0], &q[0], &qm[0], &qp[0], i, d4, con3)
	}
	for ; i < n; i++ {
		r[i] = r[i] + d4*(u5p[i]-2.0*u5[i]+u5m[i]) +
			con3*(qp[i]-2.0*q[i]+qm[i])
	}
}

// fluxEnergyB is the rest, after fluxEnergyA (r holds a float64 between
// the two, as it would in one loop): r += con4*(vp^2-2v^2+vm^2) +
// con5*(u5p*rip-2u5*ri+u5m*rim) - t2*((c1*u5p-c2*sqp)*vp-(c1*u5m-c2*sqm)*vm).
func fluxEnergyB(r, v, vm, vp, u5, u5m, u5p, ri, rim, rip, sqm, sqp []float64, con4, con5, t2, c1, c2 float64) {
	n := len(r)
	v, vm, vp, u5, u5m, u5p = v[:n], vm[:n], vp[:n], u5[:n], u5m[:n], u5p[:n]
	ri, rim, rip, sqm, sqp = ri[:n], rim[:n], rip[:n], sqm[:n], sqp[:n]
	i := vecPrefix(n)
	if i > 0 {
		fluxEnergyBAVX2(&r[0], &v[0], &vm[0], &vp[0], &u5[0], &u5m[0], &u5p[0], &ri[0], &rim[0], &rip[0], &sqm[0], &sqp[0], i, con4, con5, t2, c1, c2)
	}
	for ; i < n; i++ {
		vp1, vijk, vm1 := vp[i], v[i], vm[i]
		r[i] = r[i] + con4*(vp1*vp1-2.0*vijk*vijk+vm1*vm1) +
			con5*(u5p[i]*rip[i]-2.0*u5[i]*ri[i]+u5m[i]*rim[i]) -
			t2*((c1*u5p[i]-c2*sqp[i])*vp1-
				(c1*u5m[i]-c2*sqm[i])*vm1)
	}
}
