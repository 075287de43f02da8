package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
)

// PredictionTally counts the predictions made and judged on these
// sides (a demo has both): how many were right out of how many.
func PredictionTally(snaps ...Snapshot) (right, judged int) {
	for _, s := range snaps {
		p := s.Prediction
		if p == nil || !p.Revealed || p.Picked < 0 {
			continue
		}
		judged++
		if p.Right() {
			right++
		}
	}
	return right, judged
}

// TallyText is the tally in words ("" when no prediction was judged):
// "predictions: 1 of 2 right".
func TallyText(snaps ...Snapshot) text.Text {
	right, judged := PredictionTally(snaps...)
	if judged == 0 {
		return text.Text{}
	}
	return text.Text{EN: fmt.Sprintf("predictions: %d of %d right", right, judged),
		ZH: fmt.Sprintf("预测：%d 个里对了 %d 个", judged, right)}
}
