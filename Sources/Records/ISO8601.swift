import Foundation

/// ISO 8601 dates, read and written without a formatter (deterministic, and
/// the same on every platform).
///
/// Reads `YYYY-MM-DD`, and `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or
/// an offset `±HH:MM` (a date and time without a zone is read as UTC). Writes
/// `YYYY-MM-DDTHH:MM:SSZ`, with milliseconds when there are any.
public enum ISO8601 {
    public static func date(from text: String) -> Date? {
        let s = Array(text.utf8)
        var k = 0
        func number(_ digits: Int) -> Int? {
            guard k + digits <= s.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(s[k]) else { return nil }
                value = value * 10 + Int(s[k] - UInt8(ascii: "0"))
                k += 1
            }
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard k < s.count, s[k] == c.asciiValue else { return false }
            k += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if k == s.count { return Date(timeIntervalSince1970: seconds) }
        guard expect("T") || expect("t") || expect(" "), let hour = number(2), expect(":"), let minute = number(2),
            hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if expect(":") {
            guard let second = number(2), second < 60 else { return nil }
            seconds += Double(second)
            if expect(".") || expect(",") {
                var scale = 0.1
                var fraction = 0.0
                let start = k
                while k < s.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(s[k]) {
                    fraction += Double(s[k] - UInt8(ascii: "0")) * scale
                    scale /= 10
                    k += 1
                }
                if k == start { return nil }
                seconds += fraction
            }
        }
        if k == s.count || expect("Z") || expect("z") {
            return k == s.count ? Date(timeIntervalSince1970: seconds) : nil
        }
        let sign: Double
        if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
        guard let offsetHours = number(2), offsetHours < 24 else { return nil }
        _ = expect(":")
        guard let offsetMinutes = number(2), offsetMinutes < 60, k == s.count else { return nil }
        seconds -= sign * Double(offsetHours * 3600 + offsetMinutes * 60)
        return Date(timeIntervalSince1970: seconds)
    }

    /// The date in UTC, with milliseconds when it has them. A date no calendar
    /// can show (infinite, or beyond ±30 million years; ±3 million where `Int`
    /// has 32 bits) is written as its seconds from 1970 instead.
    public static func string(from date: Date) -> String {
        let total = date.timeIntervalSince1970
        // The days since 1970 must fit in Int (1e14 s is 1.16e9 days).
        guard total.isFinite, Swift.abs(total) < (Int.bitWidth == 64 ? 1e15 : 1e14) else { return "\(total) seconds from 1970" }
        var seconds = total.rounded(.down)
        var milliseconds = Int(((total - seconds) * 1000).rounded())
        if milliseconds == 1000 { seconds += 1; milliseconds = 0 }
        let days = Int((seconds / 86_400).rounded(.down))
        let secondOfDay = Int(seconds - Double(days) * 86_400)   // exact: 0 ..< 86,400
        let (year, month, day) = civilFromDays(days)
        func pad(_ n: Int, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if milliseconds != 0 { text += ".\(pad(milliseconds, 3))" }
        return text + "Z"
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
