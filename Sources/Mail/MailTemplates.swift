/// What one kind of message says. `{app}` stands for the app name and `{user}` for the username.
struct MailTemplate {
    let subject: String
    /// Paragraphs before the link.
    let lead: [String]
    /// The button's label: the kinds that carry a link only.
    let action: String?
    /// Paragraphs after the link.
    let trail: [String]
}

/// Everything one language says: the frame of every message and the five kinds.
struct MailTexts {
    let greeting: String
    /// Under the button, before the link as text.
    let linkHint: String
    let signOff: String
    let verifyEmail, resetPassword, passwordChanged, emailChanged, accountDeleted: MailTemplate

    subscript(kind: MailKind) -> MailTemplate {
        switch kind {
        case .verifyEmail: verifyEmail
        case .resetPassword: resetPassword
        case .passwordChanged: passwordChanged
        case .emailChanged: emailChanged
        case .accountDeleted: accountDeleted
        }
    }

    static func of(_ language: MailLanguage) -> MailTexts {
        switch language {
        case .english: english
        case .spanish: spanish
        case .french: french
        case .korean: korean
        }
    }

    static let english = MailTexts(
        greeting: "Hello {user},",
        linkHint: "If the button does not work, open this link:",
        signOff: "The {app} team",
        verifyEmail: MailTemplate(
            subject: "Confirm your email address for {app}",
            lead: ["Please confirm that this is the email address of your {app} account by opening the link below."],
            action: "Confirm email address",
            trail: ["This link expires after a while. If you did not ask for this, you can ignore this email."]),
        resetPassword: MailTemplate(
            subject: "Reset your {app} password",
            lead: ["Someone, hopefully you, asked to reset the password of your {app} account. To choose a new password, open the link below."],
            action: "Choose a new password",
            trail: ["This link expires soon and works once. If you did not ask for this, ignore this email: your password stays as it is."]),
        passwordChanged: MailTemplate(
            subject: "Your {app} password was changed",
            lead: ["The password of your {app} account was just changed."],
            action: nil,
            trail: ["If this was you, there is nothing to do. If it was not, reset your password right away and contact support."]),
        emailChanged: MailTemplate(
            subject: "Your {app} email address was changed",
            lead: ["The email address of your {app} account was changed. This address will no longer receive mail about the account."],
            action: nil,
            trail: ["If this was not you, reset your password and contact support right away."]),
        accountDeleted: MailTemplate(
            subject: "Your {app} account was deleted",
            lead: ["Your {app} account and its data have been deleted."],
            action: nil,
            trail: ["If this was not you, contact support right away."]))

    static let spanish = MailTexts(
        greeting: "Hola, {user}:",
        linkHint: "Si el botón no funciona, abre este enlace:",
        signOff: "El equipo de {app}",
        verifyEmail: MailTemplate(
            subject: "Confirma tu dirección de correo en {app}",
            lead: ["Confirma que esta es la dirección de correo de tu cuenta de {app} abriendo el enlace de abajo."],
            action: "Confirmar dirección de correo",
            trail: ["Este enlace caduca al cabo de un tiempo. Si no lo has pedido tú, puedes ignorar este correo."]),
        resetPassword: MailTemplate(
            subject: "Restablece tu contraseña de {app}",
            lead: ["Alguien, esperamos que tú, ha pedido restablecer la contraseña de tu cuenta de {app}. Para elegir una contraseña nueva, abre el enlace de abajo."],
            action: "Elegir una contraseña nueva",
            trail: ["Este enlace caduca pronto y solo funciona una vez. Si no lo has pedido tú, ignora este correo: tu contraseña no cambia."]),
        passwordChanged: MailTemplate(
            subject: "Se ha cambiado tu contraseña de {app}",
            lead: ["Se acaba de cambiar la contraseña de tu cuenta de {app}."],
            action: nil,
            trail: ["Si has sido tú, no tienes que hacer nada. Si no, restablece tu contraseña enseguida y ponte en contacto con el soporte."]),
        emailChanged: MailTemplate(
            subject: "Se ha cambiado tu dirección de correo en {app}",
            lead: ["Se ha cambiado la dirección de correo de tu cuenta de {app}. Esta dirección ya no recibirá mensajes sobre la cuenta."],
            action: nil,
            trail: ["Si no has sido tú, restablece tu contraseña y ponte en contacto con el soporte cuanto antes."]),
        accountDeleted: MailTemplate(
            subject: "Se ha eliminado tu cuenta de {app}",
            lead: ["Se han eliminado tu cuenta de {app} y sus datos."],
            action: nil,
            trail: ["Si no has sido tú, ponte en contacto con el soporte cuanto antes."]))

    static let french = MailTexts(
        greeting: "Bonjour {user},",
        linkHint: "Si le bouton ne fonctionne pas, ouvrez ce lien :",
        signOff: "L'équipe {app}",
        verifyEmail: MailTemplate(
            subject: "Confirmez votre adresse e-mail pour {app}",
            lead: ["Confirmez que cette adresse e-mail est bien celle de votre compte {app} en ouvrant le lien ci-dessous."],
            action: "Confirmer l'adresse e-mail",
            trail: ["Ce lien expire au bout d'un certain temps. Si vous n'êtes pas à l'origine de cette demande, vous pouvez ignorer cet e-mail."]),
        resetPassword: MailTemplate(
            subject: "Réinitialisez votre mot de passe {app}",
            lead: ["Quelqu'un, vous sans doute, a demandé à réinitialiser le mot de passe de votre compte {app}. Pour choisir un nouveau mot de passe, ouvrez le lien ci-dessous."],
            action: "Choisir un nouveau mot de passe",
            trail: ["Ce lien expire bientôt et ne sert qu'une fois. Si vous n'avez rien demandé, ignorez cet e-mail : votre mot de passe reste inchangé."]),
        passwordChanged: MailTemplate(
            subject: "Le mot de passe de votre compte {app} a été modifié",
            lead: ["Le mot de passe de votre compte {app} vient d'être modifié."],
            action: nil,
            trail: ["Si c'est bien vous, vous n'avez rien à faire. Sinon, réinitialisez votre mot de passe immédiatement et contactez le support."]),
        emailChanged: MailTemplate(
            subject: "L'adresse e-mail de votre compte {app} a été modifiée",
            lead: ["L'adresse e-mail de votre compte {app} a été modifiée. Cette adresse ne recevra plus de messages concernant ce compte."],
            action: nil,
            trail: ["Si ce n'est pas vous, réinitialisez votre mot de passe et contactez le support sans attendre."]),
        accountDeleted: MailTemplate(
            subject: "Votre compte {app} a été supprimé",
            lead: ["Votre compte {app} et ses données ont été supprimés."],
            action: nil,
            trail: ["Si ce n'est pas vous, contactez le support sans attendre."]))

    static let korean = MailTexts(
        greeting: "{user}님, 안녕하세요.",
        linkHint: "버튼이 작동하지 않으면 이 링크를 여세요:",
        signOff: "{app} 팀 드림",
        verifyEmail: MailTemplate(
            subject: "{app} 이메일 주소를 인증해 주세요",
            lead: ["아래 링크를 열어 이 이메일 주소가 {app} 계정의 주소임을 확인해 주세요."],
            action: "이메일 주소 인증하기",
            trail: ["이 링크는 일정 시간이 지나면 만료됩니다. 직접 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다."]),
        resetPassword: MailTemplate(
            subject: "{app} 비밀번호 재설정",
            lead: ["{app} 계정의 비밀번호 재설정이 요청되었습니다. 새 비밀번호를 정하려면 아래 링크를 여세요."],
            action: "새 비밀번호 정하기",
            trail: ["이 링크는 곧 만료되며 한 번만 쓸 수 있습니다. 요청하지 않으셨다면 이 메일을 무시하세요. 비밀번호는 그대로 유지됩니다."]),
        passwordChanged: MailTemplate(
            subject: "{app} 비밀번호가 변경되었습니다",
            lead: ["{app} 계정의 비밀번호가 방금 변경되었습니다."],
            action: nil,
            trail: ["본인이 변경하셨다면 따로 하실 일은 없습니다. 본인이 아니라면 즉시 비밀번호를 재설정하고 고객 지원팀에 문의해 주세요."]),
        emailChanged: MailTemplate(
            subject: "{app} 이메일 주소가 변경되었습니다",
            lead: ["{app} 계정의 이메일 주소가 변경되었습니다. 앞으로 이 주소로는 계정 관련 메일이 발송되지 않습니다."],
            action: nil,
            trail: ["본인이 변경하지 않으셨다면 즉시 비밀번호를 재설정하고 고객 지원팀에 문의해 주세요."]),
        accountDeleted: MailTemplate(
            subject: "{app} 계정이 삭제되었습니다",
            lead: ["{app} 계정과 그 데이터가 삭제되었습니다."],
            action: nil,
            trail: ["본인이 삭제하지 않으셨다면 즉시 고객 지원팀에 문의해 주세요."]))
}
