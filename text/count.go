package text

import "strconv"

// Count is n and the noun for it in English: "1 move", "2 moves", "0
// moves". (Chinese has no plural: its formats take the number alone.)
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
