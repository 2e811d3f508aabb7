package game

// Openings returns every start of the X-O-X variant's optional opening: one
// X and one O on cells that are not neighbours (not even diagonally), X to
// move. The package has no randomness; a caller picks one at random. For
// k-in-a-row rules it returns nil.
func (r Rules) Openings() []Position {
	if r.variant != XOX || r.geo == nil {
		return nil
	}
	var out []Position
	for xs := r.Board(); xs != 0; xs &= xs - 1 {
		xc := xs.First()
		for os := r.Board(); os != 0; os &= os - 1 {
			oc := os.First()
			dr, dc := xc.Row()-oc.Row(), xc.Col()-oc.Col()
			if dr >= -1 && dr <= 1 && dc >= -1 && dc <= 1 {
				continue // same cell or neighbours
			}
			x, o := Bitboard(0).With(xc), Bitboard(0).With(oc)
			out = append(out, Position{rules: r, x: x, o: o, outcome: r.outcomeOf(x, o)})
		}
	}
	return out
}
