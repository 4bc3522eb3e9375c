/// Every breaking and dangerous change from `old` to `new`, with graphql-js's rules
/// and descriptions, in graphql-js's order (`findSchemaChanges`): type changes in
/// the old schema's type order, then directive changes.
///
/// Changes to a type's fields or arguments are judged by where the type is used:
/// an output field may become non-null but not nullable; an argument or input field
/// may become nullable but not non-null. Default values are compared as
/// introspection shows them (coerced, printed canonically, object fields sorted).
public func findSchemaChanges(from old: GraphQLSchema, to new: GraphQLSchema) -> [SchemaChange] {
    SchemaDiff(old: old, new: new).changes()
}

/// The breaking changes from `old` to `new` (graphql-js `findBreakingChanges`).
public func findBreakingChanges(from old: GraphQLSchema, to new: GraphQLSchema) -> [SchemaChange] {
    findSchemaChanges(from: old, to: new).filter(\.isBreaking)
}

/// The dangerous changes from `old` to `new` (graphql-js `findDangerousChanges`).
public func findDangerousChanges(from old: GraphQLSchema, to new: GraphQLSchema) -> [SchemaChange] {
    findSchemaChanges(from: old, to: new).filter { !$0.isBreaking }
}

/// The comparison behind `findSchemaChanges`, after graphql-js's `findBreakingChanges.ts`.
struct SchemaDiff {
    let old: GraphQLSchema
    let new: GraphQLSchema

    func changes() -> [SchemaChange] {
        typeChanges() + directiveChanges()
    }

    // MARK: Directives

    private func directiveChanges() -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let diff = Self.diff(old.directives, new.directives, name: \.name)
        for directive in diff.removed {
            changes.append(SchemaChange(.directiveRemoved, "\(directive.name) was removed."))
        }
        for (oldDirective, newDirective) in diff.persisted {
            let arguments = Self.diff(oldDirective.arguments, newDirective.arguments, name: \.name)
            for argument in arguments.added where isRequired(argument, in: new) {
                changes.append(
                    SchemaChange(.requiredDirectiveArgAdded, "A required arg \(argument.name) on directive \(oldDirective.name) was added."))
            }
            for argument in arguments.removed {
                changes.append(SchemaChange(.directiveArgRemoved, "\(argument.name) was removed from \(newDirective.name)."))
            }
            if oldDirective.isRepeatable && !newDirective.isRepeatable {
                changes.append(SchemaChange(.directiveRepeatableRemoved, "Repeatable flag was removed from \(oldDirective.name)."))
            }
            for location in oldDirective.locations where !newDirective.locations.contains(location) {
                changes.append(SchemaChange(.directiveLocationRemoved, "\(location.rawValue) was removed from \(newDirective.name)."))
            }
        }
        return changes
    }

    // MARK: Types

    private func typeChanges() -> [SchemaChange] {
        var changes: [SchemaChange] = []
        var persisted: [(NamedType, NamedType)] = []
        for oldType in old.types {
            guard let newType = new.type(oldType.name) else {
                let description = BuiltInScalars.all[oldType.name] != nil
                    ? "Standard scalar \(oldType.name) was removed because it is not referenced anymore."
                    : "\(oldType.name) was removed."
                changes.append(SchemaChange(.typeRemoved, description))
                continue
            }
            persisted.append((oldType, newType))
        }
        for (oldType, newType) in persisted {
            switch (oldType, newType) {
            case (.enumType(let oldEnum), .enumType(let newEnum)):
                changes += enumChanges(oldEnum, newEnum)
            case (.union(let oldUnion), .union(let newUnion)):
                changes += unionChanges(oldUnion, newUnion)
            case (.inputObject(let oldInput), .inputObject(let newInput)):
                changes += inputObjectChanges(oldInput, newInput)
            case (.object(let oldObject), .object(let newObject)),
                (.interface(let oldObject), .interface(let newObject)):
                changes += fieldChanges(oldObject, newObject)
                changes += interfaceChanges(oldObject, newObject)
            case (.scalar, .scalar):
                break
            default:
                changes.append(
                    SchemaChange(.typeChangedKind, "\(oldType.name) changed from \(Self.kindName(oldType)) to \(Self.kindName(newType))."))
            }
        }
        return changes
    }

    private func enumChanges(_ oldType: EnumType, _ newType: EnumType) -> [SchemaChange] {
        let diff = Self.diff(oldType.values, newType.values, name: \.name)
        return diff.added.map { SchemaChange(.valueAddedToEnum, "\($0.name) was added to enum type \(oldType.name).") }
            + diff.removed.map { SchemaChange(.valueRemovedFromEnum, "\($0.name) was removed from enum type \(oldType.name).") }
    }

    private func unionChanges(_ oldType: UnionType, _ newType: UnionType) -> [SchemaChange] {
        let diff = Self.diff(oldType.types, newType.types, name: \.self)
        return diff.added.map { SchemaChange(.typeAddedToUnion, "\($0) was added to union type \(oldType.name).") }
            + diff.removed.map { SchemaChange(.typeRemovedFromUnion, "\($0) was removed from union type \(oldType.name).") }
    }

    private func interfaceChanges(_ oldType: ObjectType, _ newType: ObjectType) -> [SchemaChange] {
        let diff = Self.diff(oldType.interfaces, newType.interfaces, name: \.self)
        return diff.added.map {
            SchemaChange(.implementedInterfaceAdded, "\($0) added to interfaces implemented by \(oldType.name).")
        } + diff.removed.map {
            SchemaChange(.implementedInterfaceRemoved, "\(oldType.name) no longer implements interface \($0).")
        }
    }

    private func inputObjectChanges(_ oldType: InputObjectType, _ newType: InputObjectType) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let diff = Self.diff(oldType.fields, newType.fields, name: \.name)
        for field in diff.added {
            if isRequired(field, in: new) {
                changes.append(
                    SchemaChange(.requiredInputFieldAdded, "A required field \(field.name) on input type \(oldType.name) was added."))
            } else {
                changes.append(
                    SchemaChange(.optionalInputFieldAdded, "An optional field \(field.name) on input type \(oldType.name) was added."))
            }
        }
        for field in diff.removed {
            changes.append(SchemaChange(.fieldRemoved, "\(oldType.name).\(field.name) was removed."))
        }
        for (oldField, newField) in diff.persisted where !Self.isSafeInputChange(from: oldField.type, to: newField.type) {
            changes.append(
                SchemaChange(.fieldChangedKind, "\(oldType.name).\(oldField.name) changed type from \(oldField.type) to \(newField.type)."))
        }
        return changes
    }

    private func fieldChanges(_ oldType: ObjectType, _ newType: ObjectType) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let diff = Self.diff(oldType.fields, newType.fields, name: \.name)
        for field in diff.removed {
            changes.append(SchemaChange(.fieldRemoved, "\(oldType.name).\(field.name) was removed."))
        }
        for (oldField, newField) in diff.persisted {
            changes += argumentChanges(oldType, oldField, newField)
            if !Self.isSafeOutputChange(from: oldField.type, to: newField.type) {
                changes.append(
                    SchemaChange(.fieldChangedKind, "\(oldType.name).\(oldField.name) changed type from \(oldField.type) to \(newField.type)."))
            }
        }
        return changes
    }

    private func argumentChanges(_ type: ObjectType, _ oldField: FieldDef, _ newField: FieldDef) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let owner = "\(type.name).\(oldField.name)"
        let diff = Self.diff(oldField.arguments, newField.arguments, name: \.name)
        for argument in diff.removed {
            changes.append(SchemaChange(.argRemoved, "\(owner) arg \(argument.name) was removed."))
        }
        for (oldArgument, newArgument) in diff.persisted {
            if !Self.isSafeInputChange(from: oldArgument.type, to: newArgument.type) {
                changes.append(
                    SchemaChange(.argChangedKind, "\(owner) arg \(oldArgument.name) has changed type from \(oldArgument.type) to \(newArgument.type)."))
            } else if let oldDefault = Self.introspectedDefault(of: oldArgument, in: old) {
                guard let newDefault = Self.introspectedDefault(of: newArgument, in: new) else {
                    changes.append(SchemaChange(.argDefaultValueChange, "\(owner) arg \(oldArgument.name) defaultValue was removed."))
                    continue
                }
                if oldDefault != newDefault {
                    changes.append(
                        SchemaChange(.argDefaultValueChange, "\(owner) arg \(oldArgument.name) has changed defaultValue from \(oldDefault) to \(newDefault)."))
                }
            }
        }
        for argument in diff.added {
            if isRequired(argument, in: new) {
                changes.append(SchemaChange(.requiredArgAdded, "A required arg \(argument.name) on \(owner) was added."))
            } else {
                changes.append(SchemaChange(.optionalArgAdded, "An optional arg \(argument.name) on \(owner) was added."))
            }
        }
        return changes
    }

    // MARK: Rules

    /// graphql-js isRequiredArgument / isRequiredInputField: non-null with no default
    /// (a default literal that does not coerce counts as none, as in graphql-js).
    private func isRequired(_ value: InputValueDef, in schema: GraphQLSchema) -> Bool {
        value.type.isNonNull && !SchemaPrinter.hasDefault(value, in: schema)
    }

    /// An output position may keep or gain non-null wrappers at any level, but not lose one.
    static func isSafeOutputChange(from oldType: TypeRef, to newType: TypeRef) -> Bool {
        switch (oldType, newType) {
        case (.list(let oldItem), .list(let newItem)):
            return isSafeOutputChange(from: oldItem, to: newItem)
        case (.list, .nonNull(let newInner)):
            return isSafeOutputChange(from: oldType, to: newInner)
        case (.list, _):
            return false
        case (.nonNull(let oldInner), .nonNull(let newInner)):
            return isSafeOutputChange(from: oldInner, to: newInner)
        case (.nonNull, _):
            return false
        case (.named(let oldName), .named(let newName)):
            return oldName == newName
        case (.named, .nonNull(let newInner)):
            return isSafeOutputChange(from: oldType, to: newInner)
        case (.named, .list):
            return false
        }
    }

    /// An input position may keep or lose non-null wrappers at any level, but not gain one.
    static func isSafeInputChange(from oldType: TypeRef, to newType: TypeRef) -> Bool {
        switch (oldType, newType) {
        case (.list(let oldItem), .list(let newItem)):
            return isSafeInputChange(from: oldItem, to: newItem)
        case (.list, _):
            return false
        case (.nonNull(let oldInner), .nonNull(let newInner)):
            return isSafeInputChange(from: oldInner, to: newInner)
        case (.nonNull(let oldInner), _):
            return isSafeInputChange(from: oldInner, to: newType)
        case (.named(let oldName), .named(let newName)):
            return oldName == newName
        case (.named, _):
            return false
        }
    }

    /// The default value as introspection's `defaultValue` shows it, with object
    /// fields sorted so that field order does not count (graphql-js stringifyValue);
    /// nil when there is none (or it does not coerce: graphql-js's `undefined`).
    static func introspectedDefault(of value: InputValueDef, in schema: GraphQLSchema) -> String? {
        guard let literal = value.defaultValue else { return nil }
        let coercer = InputCoercer(schema: schema)
        guard let coerced = coercer.literal(literal, type: value.type, variables: [:]) else { return nil }
        // astFromValue of a value coerced for the same type always succeeds; the literal
        // as written is a fallback that keeps the comparison total.
        let canonical = coercer.astFromValue(coerced, type: value.type) ?? literal
        return Printer.print(sortedFields(canonical))
    }

    /// graphql-js sortValueNode: object fields in natural name order, recursively.
    static func sortedFields(_ value: Value) -> Value {
        switch value.kind {
        case .object(let fields):
            let sorted = fields.enumerated().sorted { a, b in
                let order = naturalCompare(a.element.name.value, b.element.name.value)
                return order != 0 ? order < 0 : a.offset < b.offset
            }.map { ObjectField(name: $0.element.name, value: sortedFields($0.element.value)) }
            return Value(.object(sorted))
        case .list(let values):
            return Value(.list(values.map(sortedFields)))
        default:
            return value
        }
    }

    /// graphql-js naturalCompare: digit runs compare by value, other characters by
    /// code unit; on a tie the shorter string comes first.
    static func naturalCompare(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf16), b = Array(b.utf16)
        func isDigit(_ unit: UInt16?) -> Bool { unit.map { (0x30...0x39).contains($0) } ?? false }
        var i = 0, j = 0
        while i < a.count && j < b.count {
            var aUnit: UInt16? = a[i], bUnit: UInt16? = b[j]
            if isDigit(aUnit) && isDigit(bUnit) {
                // As graphql-js: a run is read while its value is positive, so leading
                // zeros are compared one by one.
                var aNumber = 0
                repeat {
                    i += 1
                    aNumber = aNumber &* 10 &+ Int(aUnit! - 0x30)
                    aUnit = i < a.count ? a[i] : nil
                } while isDigit(aUnit) && aNumber > 0
                var bNumber = 0
                repeat {
                    j += 1
                    bNumber = bNumber &* 10 &+ Int(bUnit! - 0x30)
                    bUnit = j < b.count ? b[j] : nil
                } while isDigit(bUnit) && bNumber > 0
                if aNumber != bNumber { return aNumber < bNumber ? -1 : 1 }
            } else {
                if aUnit! != bUnit! { return aUnit! < bUnit! ? -1 : 1 }
                i += 1
                j += 1
            }
        }
        return a.count - b.count
    }

    /// graphql-js typeKindName.
    private static func kindName(_ type: NamedType) -> String {
        switch type {
        case .scalar: "a Scalar type"
        case .object: "an Object type"
        case .interface: "an Interface type"
        case .union: "a Union type"
        case .enumType: "an Enum type"
        case .inputObject: "an Input type"
        }
    }

    /// Items added, removed and kept between two lists, matched by name, each in its
    /// list's order (graphql-js diff).
    private static func diff<Item>(
        _ oldItems: [Item], _ newItems: [Item], name: (Item) -> String
    ) -> (added: [Item], removed: [Item], persisted: [(Item, Item)]) {
        var newByName: [String: Item] = [:]
        for item in newItems where newByName[name(item)] == nil { newByName[name(item)] = item }
        let oldNames = Set(oldItems.map(name))
        var removed: [Item] = []
        var persisted: [(Item, Item)] = []
        for oldItem in oldItems {
            if let newItem = newByName[name(oldItem)] {
                persisted.append((oldItem, newItem))
            } else {
                removed.append(oldItem)
            }
        }
        return (newItems.filter { !oldNames.contains(name($0)) }, removed, persisted)
    }
}
