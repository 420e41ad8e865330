package sweep

import (
	"errors"
	"fmt"
	"math"

	"github.com/aem-dev/aem/metrics/stats"
)

// BandErrorRate defines the uncertain band: the scores at which the
// chosen threshold's decision is estimated to disagree with the human
// label at least this often (one time in five).
const BandErrorRate = 0.2

// bandRidge is the ridge on the slope of the band's logistic fit: nothing
// next to a few dozen labels, enough that labels a threshold separates
// perfectly give a finite slope (a narrow band).
const bandRidge = 1e-3

// JudgeBand is where an escalating scorer (aem run --scorer embed+judge)
// should ask its judge, measured on the labels: the uncertain band of the
// similarity and, with Options.Fit, of the composite's probability. aem
// sweep writes it to thresholds.json ("judge_band").
//
// How a band is found: a logistic regression of the human label on the
// held-out score (Platt scaling; on the log-odds for the composite's
// probability) estimates P(pass | score). At a score s the chosen
// threshold t decides against the label with probability P(pass | s)
// below t and 1 - P(pass | s) at or above it; the band holds the scores
// where that is at least BandErrorRate: from where P(pass) reaches
// BandErrorRate to where it reaches 1 - BandErrorRate, widened to hold t
// when t lies outside (a threshold chosen for precision or recall). Where
// the score does not rise with the labels, every score is uncertain: the
// band is the whole scale. The band is fitted against the global
// threshold; sub-metric and field thresholds are not consulted.
type JudgeBand struct {
	// ErrorRate is BandErrorRate.
	ErrorRate  float64       `json:"error_rate"`
	Similarity UncertainBand `json:"similarity"`
	// Composite is the band of the composite's probability (Options.Fit).
	Composite *UncertainBand `json:"composite,omitempty"`
}

// UncertainBand is one scale's band, bounds included, around Threshold,
// with what it holds among the labelled comparisons: InBand of Samples
// score inside it (what escalation would send to a judge), and
// ErrorsInBand of the Errors (the held-out decisions that disagree with
// the label) lie inside it.
type UncertainBand struct {
	Low          float64 `json:"low"`
	High         float64 `json:"high"`
	Threshold    float64 `json:"threshold"`
	Samples      int     `json:"samples"`
	InBand       int     `json:"in_band"`
	Errors       int     `json:"errors"`
	ErrorsInBand int     `json:"errors_in_band"`
}

// uncertainBand finds e's band around the threshold t (see JudgeBand):
// scores are similarities in [-1, 1], or probabilities in [0, 1].
func uncertainBand(e *evaluation, labels []bool, t float64, probability bool) (*UncertainBand, error) {
	x, lowest := e.held, -1.0
	if probability {
		x, lowest = make([]float64, len(e.held)), 0
		for i, p := range e.held {
			x[i] = logit(p)
		}
	}
	b := &UncertainBand{Low: lowest, High: 1, Threshold: t, Samples: len(labels)}
	fit, err := stats.FitLogistic(x, labels, bandRidge)
	switch {
	case errors.Is(err, stats.ErrUndefined): // every score the same: no score is surer than another
	case err != nil:
		return nil, fmt.Errorf("the uncertain band: %w", err)
	case fit.Slope > 0:
		lo, hi := fit.At(BandErrorRate), fit.At(1-BandErrorRate)
		if probability {
			lo, hi = sigmoid(lo), sigmoid(hi)
		}
		b.Low = math.Max(lowest, math.Min(lo, t))
		b.High = math.Min(1, math.Max(hi, t))
	}
	for i, s := range e.held {
		in := s >= b.Low && s <= b.High
		if in {
			b.InBand++
		}
		if e.predicted[i] != labels[i] {
			b.Errors++
			if in {
				b.ErrorsInBand++
			}
		}
	}
	return b, nil
}

func logit(p float64) float64 {
	p = math.Max(1e-9, math.Min(1-1e-9, p))
	return math.Log(p / (1 - p))
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// judgeBand measures the bands of the cosine's evaluation and, when
// fitted, the composite's, with warnings for a band that holds every
// score or no labelled comparison.
func judgeBand(cos, comp *evaluation, labels []bool) (*JudgeBand, []string, error) {
	sim, err := uncertainBand(cos, labels, cos.threshold(), false)
	if err != nil {
		return nil, nil, err
	}
	jb := &JudgeBand{ErrorRate: BandErrorRate, Similarity: *sim}
	if comp != nil {
		if jb.Composite, err = uncertainBand(comp, labels, comp.model.Threshold, true); err != nil {
			return nil, nil, err
		}
	}
	var warnings []string
	for _, b := range []struct {
		name string
		b    *UncertainBand
		all  float64
	}{{"similarity", sim, -1}, {"composite's probability", jb.Composite, 0}} {
		switch {
		case b.b == nil:
		case b.b.Low == b.all && b.b.High == 1:
			warnings = append(warnings, fmt.Sprintf("the %s does not rise with the human labels: its judge band is the whole scale, so aem run --scorer embed+judge with this file asks the judge about every comparison", b.name))
		case b.b.InBand == 0:
			warnings = append(warnings, fmt.Sprintf("no labelled comparison lies in the judge band of the %s, [%.4g, %.4g]: the labels are separated cleanly, so aem run --scorer embed+judge with this file will ask the judge about few comparisons; label more comparisons near the threshold, or choose the band with --judge-band",
				b.name, b.b.Low, b.b.High))
		}
	}
	return jb, warnings, nil
}
