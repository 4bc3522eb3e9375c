import Mail
import Testing

/// `{{name}}` escaped, `{{{name}}}` as it is, everything else exactly as written; a file that
/// does not parse says where and why.
struct HTMLTemplateTests {
    @Test func placeholdersAreEscapedOrInsertedAsTheySay() throws {
        let template = try HTMLTemplate(file: "t.html", text: "<p title=\"{{a}}\">{{{b}}} {{a}}</p>\n")
        #expect(template.names == ["a", "b", "a"])
        #expect(
            template.render(["a": #"<"&'>"#, "b": "<b>bold</b>"])
                == "<p title=\"&lt;&quot;&amp;&#39;&gt;\"><b>bold</b> &lt;&quot;&amp;&#39;&gt;</p>\n")
        #expect(try HTMLTemplate(file: "t.html", text: "a {b} } {{{c.d-e_1}}}}").render(["c.d-e_1": "x"]) == "a {b} } x}")
        #expect(try HTMLTemplate(file: "t.html", text: "").render().isEmpty)
        #expect(try HTMLTemplate(file: "t.html", text: "{{x}}{{{y}}}").render { $0 == "x" ? "<" : ">" } == "&lt;>")
    }

    @Test(arguments: [
        ("<p>{{name</p>", "t.html:1: a placeholder opened with {{ is not closed with }}."),
        ("<p>\n\n{{{name}}</p>", "t.html:3: a placeholder opened with {{{ is not closed with }}}."),
        ("<p>{{a}}\n{{first name}}</p>", #"t.html:2: "first name" is not a placeholder name (letters, digits, '.', '-' and '_')."#),
        ("{{}}", #"t.html:1: "" is not a placeholder name (letters, digits, '.', '-' and '_')."#),
    ])
    func aTemplateThatDoesNotParseSaysWhereAndWhy(text: String, message: String) {
        #expect {
            try HTMLTemplate(file: "t.html", text: text)
        } throws: { error in
            (error as? HTMLTemplateError)?.description == message
        }
    }
}
