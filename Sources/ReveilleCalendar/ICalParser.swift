import CICal

/// libical's parser behind one function: iCalendar text in, `ICalComponent` values out. The
/// text is checked against `limits` before libical sees it, every C object is freed before
/// this returns, and what libical could not read comes back as `problems`, not as properties.
package enum ICalParser {
    /// What a text held: its top-level components (normally one VCALENDAR) and the lines libical
    /// could not read, in its words.
    package struct Document: Sendable {
        package var components: [ICalComponent]
        package var problems: [String]
    }

    package static func parse(_ text: String, limits: ICalLimits) throws(ICalError) -> Document {
        try limits.check(text)
        guard !text.utf8.contains(0) else {
            throw ICalError("the calendar contains a NUL byte; iCalendar is text")
        }
        // Past errors libical would otherwise abort the process (its build's default).
        icalerror_set_errors_are_fatal(0)
        guard let root = text.withCString({ icalparser_parse_string($0) }) else {
            throw ICalError("no iCalendar data found; expected BEGIN:VCALENDAR … END:VCALENDAR")
        }
        defer { icalcomponent_free(root) }
        var problems: [String] = []
        let tree = component(root, problems: &problems)
        // Several top-level components come wrapped in an XROOT of libical's own.
        let components = icalcomponent_isa(root) == ICAL_XROOT_COMPONENT ? tree.components : [tree]
        try limits.checkAlarms(components)
        return Document(components: components, problems: problems)
    }

    private static func component(_ pointer: OpaquePointer, problems: inout [String]) -> ICalComponent {
        let kind = icalcomponent_isa(pointer)
        var result = ICalComponent(icalcomponent_kind_to_string(kind).map { String(cString: $0) } ?? "X")
        var property = icalcomponent_get_first_property(pointer, ICAL_ANY_PROPERTY)
        while let current = property {
            let name = owned(icalproperty_get_property_name_r(current)) ?? ""
            let value = Self.value(of: current)
            if name == "X-LIC-ERROR" {
                problems.append(value)
            } else {
                result.properties.append(ICalProperty(name, value, parameters: parameters(of: current)))
            }
            property = icalcomponent_get_next_property(pointer, ICAL_ANY_PROPERTY)
        }
        var child = icalcomponent_get_first_component(pointer, ICAL_ANY_COMPONENT)
        while let current = child {
            result.components.append(component(current, problems: &problems))
            child = icalcomponent_get_next_component(pointer, ICAL_ANY_COMPONENT)
        }
        return result
    }

    /// TEXT and unknown (X) values unescaped, as libical read them; others in their iCalendar form.
    private static func value(of property: OpaquePointer) -> String {
        guard let value = icalproperty_get_value(property) else { return "" }
        switch icalvalue_isa(value) {
        case ICAL_TEXT_VALUE: return icalvalue_get_text(value).map { String(cString: $0) } ?? ""
        case ICAL_X_VALUE: return icalvalue_get_x(value).map { String(cString: $0) } ?? ""
        default: return owned(icalproperty_get_value_as_string_r(property)) ?? ""
        }
    }

    private static func parameters(of property: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var parameter = icalproperty_get_first_parameter(property, ICAL_ANY_PARAMETER)
        while let current = parameter {
            if let text = owned(icalparameter_as_ical_string_r(current)), let equals = text.firstIndex(of: "=") {
                let value = text[text.index(after: equals)...]
                result[text[..<equals].uppercased()] = String(value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                                                              ? value.dropFirst().dropLast() : value)
            }
            parameter = icalproperty_get_next_parameter(property, ICAL_ANY_PARAMETER)
        }
        return result
    }

    /// A string libical allocated for the caller (`_r` functions), copied and freed.
    private static func owned(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { icalmemory_free_buffer(pointer) }
        return String(cString: pointer)
    }
}
