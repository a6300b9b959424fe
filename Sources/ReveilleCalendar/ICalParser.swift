import CICal
import Glibc
import ReveilleSystem

/// libical's parser behind one function: iCalendar text in, `ICalComponent` values out. The
/// text is checked against `limits` before libical sees it, every C object is freed before
/// this returns, and what libical could not read comes back as `problems`, not as properties.
///
/// libical is opened (dlopen) on the first parse, not linked: it brings ICU and libstdc++,
/// which cost every start of `reveille` about 2 ms and the agent 3 MiB of memory, while only
/// export, import and sync read a calendar.
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
        let ical = try LibICal.loaded.get()
        // Past errors libical would otherwise abort the process (its build's default).
        ical.setErrorsAreFatal(0)
        guard let root = text.withCString({ ical.parseString($0) }) else {
            throw ICalError("no iCalendar data found; expected BEGIN:VCALENDAR … END:VCALENDAR")
        }
        defer { ical.componentFree(root) }
        var problems: [String] = []
        let tree = component(root, ical, problems: &problems)
        // Several top-level components come wrapped in an XROOT of libical's own.
        let components = ical.componentIsa(root) == ICAL_XROOT_COMPONENT ? tree.components : [tree]
        try limits.checkAlarms(components)
        return Document(components: components, problems: problems)
    }

    private static func component(_ pointer: OpaquePointer, _ ical: LibICal, problems: inout [String]) -> ICalComponent {
        let kind = ical.componentIsa(pointer)
        var result = ICalComponent(ical.componentKindToString(kind).map { String(cString: $0) } ?? "X")
        var property = ical.componentGetFirstProperty(pointer, ICAL_ANY_PROPERTY)
        while let current = property {
            let name = owned(ical.propertyGetPropertyName(current), ical) ?? ""
            let value = Self.value(of: current, ical)
            if name == "X-LIC-ERROR" {
                problems.append(value)
            } else {
                result.properties.append(ICalProperty(name, value, parameters: parameters(of: current, ical)))
            }
            property = ical.componentGetNextProperty(pointer, ICAL_ANY_PROPERTY)
        }
        var child = ical.componentGetFirstComponent(pointer, ICAL_ANY_COMPONENT)
        while let current = child {
            result.components.append(component(current, ical, problems: &problems))
            child = ical.componentGetNextComponent(pointer, ICAL_ANY_COMPONENT)
        }
        return result
    }

    /// TEXT and unknown (X) values unescaped, as libical read them; others in their iCalendar form.
    private static func value(of property: OpaquePointer, _ ical: LibICal) -> String {
        guard let value = ical.propertyGetValue(property) else { return "" }
        switch ical.valueIsa(value) {
        case ICAL_TEXT_VALUE: return ical.valueGetText(value).map { String(cString: $0) } ?? ""
        case ICAL_X_VALUE: return ical.valueGetX(value).map { String(cString: $0) } ?? ""
        default: return owned(ical.propertyGetValueAsString(property), ical) ?? ""
        }
    }

    private static func parameters(of property: OpaquePointer, _ ical: LibICal) -> [String: String] {
        var result: [String: String] = [:]
        var parameter = ical.propertyGetFirstParameter(property, ICAL_ANY_PARAMETER)
        while let current = parameter {
            if let text = owned(ical.parameterAsString(current), ical), let equals = text.firstIndex(of: "=") {
                let value = text[text.index(after: equals)...]
                result[text[..<equals].uppercased()] = String(value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                                                              ? value.dropFirst().dropLast() : value)
            }
            parameter = ical.propertyGetNextParameter(property, ICAL_ANY_PARAMETER)
        }
        return result
    }

    /// A string libical allocated for the caller (`_r` functions), copied and freed.
    private static func owned(_ pointer: UnsafeMutablePointer<CChar>?, _ ical: LibICal) -> String? {
        guard let pointer else { return nil }
        defer { ical.memoryFreeBuffer(pointer) }
        return String(cString: pointer)
    }
}

/// The libical functions `ICalParser` calls, looked up in libical.so.3 once, on first use. Their
/// types are libical's own declarations (CICal's typedefs), so a changed signature does not compile.
private struct LibICal: @unchecked Sendable { // Addresses of functions in a library never closed.
    /// The library's soname: the ABI these declarations describe.
    static let soname = "libical.so.3"

    /// libical, or what kept it from loading (said when a calendar is read, never at start).
    static let loaded: Result<LibICal, ICalError> = Result { () throws(ICalError) in
        do throws(SharedLibrary.Failure) {
            return try LibICal(SharedLibrary(soname, neededBy: "reading a calendar needs it (Debian package libical3)"))
        } catch { throw ICalError(error.description) }
    }

    let setErrorsAreFatal: ReveilleICalSetErrorsAreFatal
    let parseString: ReveilleICalParseString
    let componentFree: ReveilleICalComponentFree
    let componentIsa: ReveilleICalComponentIsa
    let componentKindToString: ReveilleICalComponentKindToString
    let componentGetFirstProperty: ReveilleICalComponentGetFirstProperty
    let componentGetNextProperty: ReveilleICalComponentGetNextProperty
    let componentGetFirstComponent: ReveilleICalComponentGetFirstComponent
    let componentGetNextComponent: ReveilleICalComponentGetNextComponent
    let propertyGetPropertyName: ReveilleICalPropertyGetPropertyName
    let propertyGetValue: ReveilleICalPropertyGetValue
    let propertyGetValueAsString: ReveilleICalPropertyGetValueAsString
    let propertyGetFirstParameter: ReveilleICalPropertyGetFirstParameter
    let propertyGetNextParameter: ReveilleICalPropertyGetNextParameter
    let parameterAsString: ReveilleICalParameterAsString
    let valueIsa: ReveilleICalValueIsa
    let valueGetText: ReveilleICalValueGetText
    let valueGetX: ReveilleICalValueGetX
    let memoryFreeBuffer: ReveilleICalMemoryFreeBuffer

    private init(_ library: SharedLibrary) throws(SharedLibrary.Failure) {
        setErrorsAreFatal = try library.function("icalerror_set_errors_are_fatal")
        parseString = try library.function("icalparser_parse_string")
        componentFree = try library.function("icalcomponent_free")
        componentIsa = try library.function("icalcomponent_isa")
        componentKindToString = try library.function("icalcomponent_kind_to_string")
        componentGetFirstProperty = try library.function("icalcomponent_get_first_property")
        componentGetNextProperty = try library.function("icalcomponent_get_next_property")
        componentGetFirstComponent = try library.function("icalcomponent_get_first_component")
        componentGetNextComponent = try library.function("icalcomponent_get_next_component")
        propertyGetPropertyName = try library.function("icalproperty_get_property_name_r")
        propertyGetValue = try library.function("icalproperty_get_value")
        propertyGetValueAsString = try library.function("icalproperty_get_value_as_string_r")
        propertyGetFirstParameter = try library.function("icalproperty_get_first_parameter")
        propertyGetNextParameter = try library.function("icalproperty_get_next_parameter")
        parameterAsString = try library.function("icalparameter_as_ical_string_r")
        valueIsa = try library.function("icalvalue_isa")
        valueGetText = try library.function("icalvalue_get_text")
        valueGetX = try library.function("icalvalue_get_x")
        memoryFreeBuffer = try library.function("icalmemory_free_buffer")
    }
}
