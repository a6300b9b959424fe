import Glibc
import ReveilleWords

extension ClockStyle {
    /// The style of the process's `LC_TIME` (`setlocale(LC_TIME, "")`, then `nl_langinfo`).
    package static func fromEnvironment() -> ClockStyle {
        guard setlocale(LC_TIME, "") != nil, let format = nl_langinfo(nl_item(T_FMT)).map({ String(cString: $0) }) else {
            return .twentyFourHour
        }
        let twelve = format.contains("%I") || format.contains("%l") || format.contains("%r")
        let am = nl_langinfo(nl_item(AM_STR)).map { String(cString: $0) } ?? ""
        let pm = nl_langinfo(nl_item(PM_STR)).map { String(cString: $0) } ?? ""
        return ClockStyle(twelveHour: twelve && !am.isEmpty, am: am.isEmpty ? "AM" : am, pm: pm.isEmpty ? "PM" : pm)
    }
}
