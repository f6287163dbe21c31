package adi

// exactSolution is the exact solution at (xi, eta, zeta) (exact_solution.f).
func (k *consts) exactSolution(xi, eta, zeta float64, dtemp *[5]float64) {
	for m := 0; m < 5; m++ {
		ce := &k.ce[m]
		dtemp[m] = ce[0] +
			xi*(ce[1]+xi*(ce[4]+xi*(ce[7]+xi*ce[10]))) +
			eta*(ce[2]+eta*(ce[5]+eta*(ce[8]+eta*ce[11]))) +
			zeta*(ce[3]+zeta*(ce[6]+zeta*(ce[9]+zeta*ce[12])))
	}
}

// initialize sets u by tri-linear transfinite interpolation of the
// boundary values, then the exact values on the boundary (initialize.f).
func (s *State) initialize() {
	k := &s.k
	for c := range s.cells {
		u := s.cells[c].u
		// Nonzero everywhere: compute_rhs divides by u(1) on every point
		// of the arrays it touches.
		for i := 0; i < s.cv; i++ {
			u[i] = 1.0
			u[s.cv+i] = 0.0
			u[2*s.cv+i] = 0.0
			u[3*s.cv+i] = 0.0
			u[4*s.cv+i] = 1.0
		}
	}
	var pface [2][3][5]float64
	var temp [5]float64
	for c := range s.cells {
		cl := &s.cells[c]
		for kk, kg := 0, cl.low[2]; kg <= cl.high[2]; kk, kg = kk+1, kg+1 {
			zeta := float64(kg) * k.dnzm1
			for jj, jg := 0, cl.low[1]; jg <= cl.high[1]; jj, jg = jj+1, jg+1 {
				eta := float64(jg) * k.dnym1
				for ii, ig := 0, cl.low[0]; ig <= cl.high[0]; ii, ig = ii+1, ig+1 {
					xi := float64(ig) * k.dnxm1
					for ix := 0; ix < 2; ix++ {
						k.exactSolution(float64(ix), eta, zeta, &pface[ix][0])
					}
					for iy := 0; iy < 2; iy++ {
						k.exactSolution(xi, float64(iy), zeta, &pface[iy][1])
					}
					for iz := 0; iz < 2; iz++ {
						k.exactSolution(xi, eta, float64(iz), &pface[iz][2])
					}
					p := s.idx(ii, jj, kk)
					for m := 0; m < 5; m++ {
						pxi := xi*pface[1][0][m] + (1.0-xi)*pface[0][0][m]
						peta := eta*pface[1][1][m] + (1.0-eta)*pface[0][1][m]
						pzeta := zeta*pface[1][2][m] + (1.0-zeta)*pface[0][2][m]
						cl.u[m*s.cv+p] = pxi + peta + pzeta - pxi*peta - pxi*pzeta - peta*pzeta + pxi*peta*pzeta
					}
				}
			}
		}
	}
	// The exact values on the six faces of the grid.
	for d := 0; d < 3; d++ {
		for side := 0; side < 2; side++ {
			cl := &s.cells[s.slice[d][side*(s.ncells-1)]]
			a, b := (d+1)%3, (d+2)%3
			if d == 1 {
				a, b = 0, 2
			} else if d == 2 {
				a, b = 0, 1
			}
			// a is the faster of the two other axes.
			var loc [3]int
			loc[d] = side * (cl.size[d] - 1)
			var pos [3]float64
			pos[d] = float64(side)
			for lb, gb := 0, cl.low[b]; gb <= cl.high[b]; lb, gb = lb+1, gb+1 {
				pos[b] = float64(gb) * s.dn(b)
				loc[b] = lb
				for la, ga := 0, cl.low[a]; ga <= cl.high[a]; la, ga = la+1, ga+1 {
					pos[a] = float64(ga) * s.dn(a)
					loc[a] = la
					k.exactSolution(pos[0], pos[1], pos[2], &temp)
					p := s.idx(loc[0], loc[1], loc[2])
					for m := 0; m < 5; m++ {
						cl.u[m*s.cv+p] = temp[m]
					}
				}
			}
		}
	}
}

// dn is the grid spacing along axis d.
func (s *State) dn(d int) float64 {
	switch d {
	case 0:
		return s.k.dnxm1
	case 1:
		return s.k.dnym1
	}
	return s.k.dnzm1
}

// exactRHS computes the forcing term from the exact solution
// (exact_rhs.f): the flux differences and fourth-order dissipation along
// each axis, line by line, then its negation.
func (s *State) exactRHS() {
	k := &s.k
	var dtemp [5]float64
	for c := range s.cells {
		cl := &s.cells[c]
		f := cl.forcing
		clear(f)
		for d := 0; d < 3; d++ {
			// Per axis: the velocity component that is normal (mv), the
			// coefficients, and the two other axes a (faster) and b.
			var a, b int
			var t2, con1, con2, con3, con4, con5 float64
			var dd [5]float64
			switch d {
			case 0:
				a, b = 1, 2
				t2, con1, con2, con3, con4, con5 = k.tx2, k.xxcon1, k.xxcon2, k.xxcon3, k.xxcon4, k.xxcon5
				dd = [5]float64{k.dx1tx1, k.dx2tx1, k.dx3tx1, k.dx4tx1, k.dx5tx1}
			case 1:
				a, b = 0, 2
				t2, con1, con2, con3, con4, con5 = k.ty2, k.yycon1, k.yycon2, k.yycon3, k.yycon4, k.yycon5
				dd = [5]float64{k.dy1ty1, k.dy2ty1, k.dy3ty1, k.dy4ty1, k.dy5ty1}
			case 2:
				a, b = 0, 1
				t2, con1, con2, con3, con4, con5 = k.tz2, k.zzcon1, k.zzcon2, k.zzcon3, k.zzcon4, k.zzcon5
				dd = [5]float64{k.dz1tz1, k.dz2tz1, k.dz3tz1, k.dz4tz1, k.dz5tz1}
			}
			mv := d + 1
			ue, buf, cuf, q := &s.ue, &s.buf, s.cuf, s.q
			sd := s.stride[d]
			var pos [3]float64
			var loc [3]int
			for lb := cl.start[b]; lb < cl.size[b]-cl.end[b]; lb++ {
				pos[b] = float64(lb+cl.low[b]) * s.dn(b)
				loc[b] = lb
				for la := cl.start[a]; la < cl.size[a]-cl.end[a]; la++ {
					pos[a] = float64(la+cl.low[a]) * s.dn(a)
					loc[a] = la
					// The line along d, with two points beyond each end
					// (inside the grid).
					for i := -2 * (1 - cl.start[d]); i <= cl.size[d]+1-2*cl.end[d]; i++ {
						pos[d] = float64(i+cl.low[d]) * s.dn(d)
						k.exactSolution(pos[0], pos[1], pos[2], &dtemp)
						ii := i + 2
						for m := 0; m < 5; m++ {
							ue[m][ii] = dtemp[m]
						}
						dtpp := 1.0 / dtemp[0]
						for m := 1; m < 5; m++ {
							buf[m][ii] = dtpp * dtemp[m]
						}
						cuf[ii] = buf[mv][ii] * buf[mv][ii]
						// buf(1): the squared velocity, the normal
						// component first.
						o1, o2 := 1+(d+1)%3, 1+(d+2)%3
						if d == 1 {
							o1, o2 = 1, 3
						} else if d == 2 {
							o1, o2 = 1, 2
						}
						buf[0][ii] = cuf[ii] + buf[o1][ii]*buf[o1][ii] + buf[o2][ii]*buf[o2][ii]
						q[ii] = 0.5 * (buf[1][ii]*ue[1][ii] + buf[2][ii]*ue[2][ii] + buf[3][ii]*ue[3][ii])
					}
					loc[d] = 0
					base := s.idx(loc[0], loc[1], loc[2])
					for i := cl.start[d]; i < cl.size[d]-cl.end[d]; i++ {
						ii, ip, im := i+2, i+3, i+1
						p := base + i*sd
						f[p] = f[p] - t2*(ue[mv][ip]-ue[mv][im]) +
							dd[0]*(ue[0][ip]-2.0*ue[0][ii]+ue[0][im])
						for m := 1; m <= 3; m++ {
							pm := m*s.cv + p
							if m == mv {
								f[pm] = f[pm] - t2*((ue[m][ip]*buf[mv][ip]+k.c2*(ue[4][ip]-q[ip]))-
									(ue[m][im]*buf[mv][im]+k.c2*(ue[4][im]-q[im]))) +
									con1*(buf[m][ip]-2.0*buf[m][ii]+buf[m][im]) +
									dd[m]*(ue[m][ip]-2.0*ue[m][ii]+ue[m][im])
							} else {
								f[pm] = f[pm] - t2*(ue[m][ip]*buf[mv][ip]-ue[m][im]*buf[mv][im]) +
									con2*(buf[m][ip]-2.0*buf[m][ii]+buf[m][im]) +
									dd[m]*(ue[m][ip]-2.0*ue[m][ii]+ue[m][im])
							}
						}
						p5 := 4*s.cv + p
						f[p5] = f[p5] - t2*(buf[mv][ip]*(k.c1*ue[4][ip]-k.c2*q[ip])-
							buf[mv][im]*(k.c1*ue[4][im]-k.c2*q[im])) +
							0.5*con3*(buf[0][ip]-2.0*buf[0][ii]+buf[0][im]) +
							con4*(cuf[ip]-2.0*cuf[ii]+cuf[im]) +
							con5*(buf[4][ip]-2.0*buf[4][ii]+buf[4][im]) +
							dd[4]*(ue[4][ip]-2.0*ue[4][ii]+ue[4][im])
					}
					// Fourth-order dissipation.
					dssp := k.dssp
					for m := 0; m < 5; m++ {
						u := ue[m]
						fm := f[m*s.cv+base:]
						if cl.start[d] > 0 {
							i := 1
							fm[i*sd] -= dssp * (5.0*u[i+2] - 4.0*u[i+3] + u[i+4])
							i = 2
							fm[i*sd] -= dssp * (-4.0*u[i+1] + 6.0*u[i+2] - 4.0*u[i+3] + u[i+4])
						}
						for i := 3 * cl.start[d]; i < cl.size[d]-3*cl.end[d]; i++ {
							fm[i*sd] -= dssp * (u[i] - 4.0*u[i+1] + 6.0*u[i+2] - 4.0*u[i+3] + u[i+4])
						}
						if cl.end[d] > 0 {
							i := cl.size[d] - 3
							fm[i*sd] -= dssp * (u[i] - 4.0*u[i+1] + 6.0*u[i+2] - 4.0*u[i+3])
							i = cl.size[d] - 2
							fm[i*sd] -= dssp * (u[i] - 4.0*u[i+1] + 5.0*u[i+2])
						}
					}
				}
			}
		}
		// Change the sign of the forcing function.
		for m := 0; m < 5; m++ {
			for kk := cl.start[2]; kk < cl.size[2]-cl.end[2]; kk++ {
				for j := cl.start[1]; j < cl.size[1]-cl.end[1]; j++ {
					for i := cl.start[0]; i < cl.size[0]-cl.end[0]; i++ {
						p := m*s.cv + s.idx(i, j, kk)
						f[p] = -1.0 * f[p]
					}
				}
			}
		}
	}
}
