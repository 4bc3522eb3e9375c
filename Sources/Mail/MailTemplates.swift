/// What one kind of message says. `{app}` stands for the app name, `{user}` for the username and
/// `{duration}` for how long the link works.
struct MailTemplate {
    let subject: String
    /// Paragraphs before the link.
    let lead: [String]
    /// The button's label: the kinds that carry a link only.
    let action: String?
    /// Paragraphs after the link.
    let trail: [String]
    /// How long the link works (`{duration}`), the first paragraph after it: the kinds that
    /// carry a link only, when the message knows the link's lifetime.
    var validity: String? = nil
}

/// How a language says a number of minutes, hours or days.
struct DurationWords {
    /// Each unit's word for one and for any other count.
    let minute, hour, day: (one: String, other: String)
    /// Between the number and the unit: a space, or nothing (Korean).
    let separator: String

    /// `seconds` in the largest unit that says it exactly (days from two days on), else in
    /// whole hours from two hours on, else in whole minutes: never more than the link works.
    func say(_ seconds: Int) -> String {
        let (count, unit) = if seconds >= 2 * 86_400 && seconds % 86_400 == 0 {
            (seconds / 86_400, day)
        } else if seconds % 3600 == 0 || seconds >= 2 * 3600 {
            (seconds / 3600, hour)
        } else {
            (max(1, seconds / 60), minute)
        }
        return "\(count)\(separator)\(count == 1 ? unit.one : unit.other)"
    }
}

/// One language's sentences for ``SignInChange``s, each a paragraph of a sign-in notice.
/// `{provider}` stands for the provider's name, `{count}` for a number.
struct SignInChangeTexts {
    let providerAdded, providerReplaced, providerRemoved: String
    /// One passkey removed, then several.
    let onePasskeyRemoved, passkeysRemoved: String
    let guestAccessRemoved, twoStepVerificationKept: String

    func describe(_ change: SignInChange) -> String {
        switch change {
        case .providerAdded(let provider): providerAdded.replacing("{provider}", with: Self.displayName(provider))
        case .providerReplaced(let provider): providerReplaced.replacing("{provider}", with: Self.displayName(provider))
        case .providerRemoved(let provider): providerRemoved.replacing("{provider}", with: Self.displayName(provider))
        case .passkeysRemoved(let count): count == 1 ? onePasskeyRemoved : passkeysRemoved.replacing("{count}", with: "\(count)")
        case .guestAccessRemoved: guestAccessRemoved
        case .twoStepVerificationKept: twoStepVerificationKept
        // The app's name as the consent screen showed it, in every language.
        case .appAuthorized(let name): name
        }
    }

    /// A provider's configured name with its first letter upper-cased: `google` → `Google`.
    static func displayName(_ provider: String) -> String {
        provider.prefix(1).uppercased() + provider.dropFirst()
    }
}

/// Everything one language says: the frame of every message and the eight kinds.
struct MailTexts {
    let greeting: String
    /// Under the button, before the link as text.
    let linkHint: String
    let signOff: String
    let durations: DurationWords
    let verifyEmail, resetPassword, passwordChanged, emailChanged, accountDeleted: MailTemplate
    let signInChanged, signInMethodsRemoved, appAuthorized: MailTemplate
    /// The paragraphs listing the sign-in kinds' changes.
    let signInChange: SignInChangeTexts
    /// The security notices.
    let securityNotices: SecurityNoticeTexts

    subscript(kind: MailKind) -> MailTemplate {
        if let notice = securityNotices[kind] { return notice }
        return switch kind {
        case .verifyEmail: verifyEmail
        case .resetPassword: resetPassword
        case .passwordChanged: passwordChanged
        case .emailChanged: emailChanged
        case .accountDeleted: accountDeleted
        case .signInChanged: signInChanged
        case .signInMethodsRemoved: signInMethodsRemoved
        case .appAuthorized: appAuthorized
        default: preconditionFailure("\(kind) is a security notice")
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
        durations: DurationWords(
            minute: ("minute", "minutes"), hour: ("hour", "hours"), day: ("day", "days"), separator: " "),
        verifyEmail: MailTemplate(
            subject: "Confirm your email address for {app}",
            lead: ["Please confirm that this is the email address of your {app} account by opening the link below."],
            action: "Confirm email address",
            trail: ["If you did not ask for this, you can ignore this email."],
            validity: "This link works for {duration}."),
        resetPassword: MailTemplate(
            subject: "Reset your {app} password",
            lead: ["Someone, hopefully you, asked to reset the password of your {app} account. To choose a new password, open the link below."],
            action: "Choose a new password",
            trail: ["If you did not ask for this, ignore this email: your password stays as it is."],
            validity: "This link works once, for {duration}."),
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
            trail: ["If this was not you, contact support right away."]),
        signInChanged: MailTemplate(
            subject: "How you sign in to {app} was changed",
            lead: ["The ways to sign in to your {app} account were changed:"],
            action: nil,
            trail: ["If this was not you, change your password, check the ways to sign in in your account settings and contact support right away."]),
        signInMethodsRemoved: MailTemplate(
            subject: "Other ways to sign in to your {app} account were removed",
            lead: ["The password of your {app} account was reset with a link sent to this address, which had not been confirmed before. So that only you can get in, the other ways to sign in were removed:"],
            action: nil,
            trail: ["You can add them again in your account settings. If you did not reset the password, contact support right away."]),
        appAuthorized: MailTemplate(
            subject: "An app can now sign you in with your {app} account",
            lead: ["You let an app sign you in with your {app} account and see what you agreed to share:"],
            action: nil,
            trail: ["You can remove it under Apps in your account settings. If this was not you, change your password and remove the app right away."]),
        signInChange: SignInChangeTexts(
            providerAdded: "Sign-in with {provider} was added.",
            providerReplaced: "Sign-in with {provider} now uses a different {provider} account.",
            providerRemoved: "Sign-in with {provider} was removed.",
            onePasskeyRemoved: "1 passkey was removed.",
            passkeysRemoved: "{count} passkeys were removed.",
            guestAccessRemoved: "Guest access was removed.",
            twoStepVerificationKept: "Two-step verification stays on. If you did not turn it on, contact support."),
        securityNotices: .english)

    static let spanish = MailTexts(
        greeting: "Hola, {user}:",
        linkHint: "Si el botón no funciona, abre este enlace:",
        signOff: "El equipo de {app}",
        durations: DurationWords(
            minute: ("minuto", "minutos"), hour: ("hora", "horas"), day: ("día", "días"), separator: " "),
        verifyEmail: MailTemplate(
            subject: "Confirma tu dirección de correo en {app}",
            lead: ["Confirma que esta es la dirección de correo de tu cuenta de {app} abriendo el enlace de abajo."],
            action: "Confirmar dirección de correo",
            trail: ["Si no lo has pedido tú, puedes ignorar este correo."],
            validity: "Este enlace funciona durante {duration}."),
        resetPassword: MailTemplate(
            subject: "Restablece tu contraseña de {app}",
            lead: ["Alguien, esperamos que tú, ha pedido restablecer la contraseña de tu cuenta de {app}. Para elegir una contraseña nueva, abre el enlace de abajo."],
            action: "Elegir una contraseña nueva",
            trail: ["Si no lo has pedido tú, ignora este correo: tu contraseña no cambia."],
            validity: "Este enlace funciona una sola vez, durante {duration}."),
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
            trail: ["Si no has sido tú, ponte en contacto con el soporte cuanto antes."]),
        signInChanged: MailTemplate(
            subject: "Han cambiado las formas de iniciar sesión en {app}",
            lead: ["Se han cambiado las formas de iniciar sesión en tu cuenta de {app}:"],
            action: nil,
            trail: ["Si no has sido tú, cambia tu contraseña, revisa las formas de iniciar sesión en los ajustes de tu cuenta y ponte en contacto con el soporte cuanto antes."]),
        signInMethodsRemoved: MailTemplate(
            subject: "Se han quitado otras formas de iniciar sesión en tu cuenta de {app}",
            lead: ["Se ha restablecido la contraseña de tu cuenta de {app} con un enlace enviado a esta dirección, que no se había confirmado antes. Para que solo tú puedas entrar, se han quitado las demás formas de iniciar sesión:"],
            action: nil,
            trail: ["Puedes volver a añadirlas en los ajustes de tu cuenta. Si no has restablecido tú la contraseña, ponte en contacto con el soporte cuanto antes."]),
        appAuthorized: MailTemplate(
            subject: "Una aplicación ya puede iniciar tu sesión con tu cuenta de {app}",
            lead: ["Has permitido que una aplicación inicie tu sesión con tu cuenta de {app} y vea lo que aceptaste compartir:"],
            action: nil,
            trail: ["Puedes quitarla en Aplicaciones, en los ajustes de tu cuenta. Si no has sido tú, cambia tu contraseña y quita la aplicación cuanto antes."]),
        signInChange: SignInChangeTexts(
            providerAdded: "Se ha añadido el inicio de sesión con {provider}.",
            providerReplaced: "El inicio de sesión con {provider} usa ahora otra cuenta de {provider}.",
            providerRemoved: "Se ha quitado el inicio de sesión con {provider}.",
            onePasskeyRemoved: "Se ha quitado 1 llave de acceso.",
            passkeysRemoved: "Se han quitado {count} llaves de acceso.",
            guestAccessRemoved: "Se ha quitado el acceso como invitado.",
            twoStepVerificationKept: "La verificación en dos pasos sigue activada. Si no la activaste tú, ponte en contacto con el soporte."),
        securityNotices: .spanish)

    static let french = MailTexts(
        greeting: "Bonjour {user},",
        linkHint: "Si le bouton ne fonctionne pas, ouvrez ce lien :",
        signOff: "L'équipe {app}",
        durations: DurationWords(
            minute: ("minute", "minutes"), hour: ("heure", "heures"), day: ("jour", "jours"), separator: " "),
        verifyEmail: MailTemplate(
            subject: "Confirmez votre adresse e-mail pour {app}",
            lead: ["Confirmez que cette adresse e-mail est bien celle de votre compte {app} en ouvrant le lien ci-dessous."],
            action: "Confirmer l'adresse e-mail",
            trail: ["Si vous n'êtes pas à l'origine de cette demande, vous pouvez ignorer cet e-mail."],
            validity: "Ce lien fonctionne pendant {duration}."),
        resetPassword: MailTemplate(
            subject: "Réinitialisez votre mot de passe {app}",
            lead: ["Quelqu'un, vous sans doute, a demandé à réinitialiser le mot de passe de votre compte {app}. Pour choisir un nouveau mot de passe, ouvrez le lien ci-dessous."],
            action: "Choisir un nouveau mot de passe",
            trail: ["Si vous n'avez rien demandé, ignorez cet e-mail : votre mot de passe reste inchangé."],
            validity: "Ce lien ne sert qu'une fois, pendant {duration}."),
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
            trail: ["Si ce n'est pas vous, contactez le support sans attendre."]),
        signInChanged: MailTemplate(
            subject: "Vos moyens de connexion à {app} ont changé",
            lead: ["Les moyens de vous connecter à votre compte {app} ont été modifiés :"],
            action: nil,
            trail: ["Si ce n'est pas vous, changez votre mot de passe, vérifiez vos moyens de connexion dans les paramètres de votre compte et contactez le support sans attendre."]),
        signInMethodsRemoved: MailTemplate(
            subject: "D'autres moyens de connexion à votre compte {app} ont été retirés",
            lead: ["Le mot de passe de votre compte {app} a été réinitialisé avec un lien envoyé à cette adresse, qui n'avait pas encore été confirmée. Pour que personne d'autre que vous ne puisse y accéder, les autres moyens de connexion ont été retirés :"],
            action: nil,
            trail: ["Vous pouvez les ajouter à nouveau dans les paramètres de votre compte. Si vous n'avez pas réinitialisé le mot de passe, contactez le support sans attendre."]),
        appAuthorized: MailTemplate(
            subject: "Une application peut désormais vous connecter avec votre compte {app}",
            lead: ["Vous avez autorisé une application à vous connecter avec votre compte {app} et à voir ce que vous avez accepté de partager :"],
            action: nil,
            trail: ["Vous pouvez la retirer dans la section Applications des paramètres de votre compte. Si ce n'était pas vous, changez votre mot de passe et retirez l'application immédiatement."]),
        signInChange: SignInChangeTexts(
            providerAdded: "La connexion avec {provider} a été ajoutée.",
            providerReplaced: "La connexion avec {provider} utilise désormais un autre compte {provider}.",
            providerRemoved: "La connexion avec {provider} a été retirée.",
            onePasskeyRemoved: "1 clé d'accès a été retirée.",
            passkeysRemoved: "{count} clés d'accès ont été retirées.",
            guestAccessRemoved: "L'accès invité a été retiré.",
            twoStepVerificationKept: "La validation en deux étapes reste activée. Si vous ne l'avez pas activée, contactez le support."),
        securityNotices: .french)

    static let korean = MailTexts(
        greeting: "{user}님, 안녕하세요.",
        linkHint: "버튼이 작동하지 않으면 이 링크를 여세요:",
        signOff: "{app} 팀 드림",
        durations: DurationWords(minute: ("분", "분"), hour: ("시간", "시간"), day: ("일", "일"), separator: ""),
        verifyEmail: MailTemplate(
            subject: "{app} 이메일 주소를 인증해 주세요",
            lead: ["아래 링크를 열어 이 이메일 주소가 {app} 계정의 주소임을 확인해 주세요."],
            action: "이메일 주소 인증하기",
            trail: ["직접 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다."],
            validity: "이 링크는 {duration} 동안 유효합니다."),
        resetPassword: MailTemplate(
            subject: "{app} 비밀번호 재설정",
            lead: ["{app} 계정의 비밀번호 재설정이 요청되었습니다. 새 비밀번호를 정하려면 아래 링크를 여세요."],
            action: "새 비밀번호 정하기",
            trail: ["요청하지 않으셨다면 이 메일을 무시하세요. 비밀번호는 그대로 유지됩니다."],
            validity: "이 링크는 {duration} 동안 한 번만 쓸 수 있습니다."),
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
            trail: ["본인이 삭제하지 않으셨다면 즉시 고객 지원팀에 문의해 주세요."]),
        signInChanged: MailTemplate(
            subject: "{app} 로그인 방법이 변경되었습니다",
            lead: ["{app} 계정의 로그인 방법이 다음과 같이 변경되었습니다."],
            action: nil,
            trail: ["본인이 변경하지 않으셨다면 비밀번호를 변경하고 계정 설정에서 로그인 방법을 확인한 뒤 즉시 고객 지원팀에 문의해 주세요."]),
        signInMethodsRemoved: MailTemplate(
            subject: "{app} 계정의 다른 로그인 방법이 삭제되었습니다",
            lead: ["이 주소로 보낸 링크로 {app} 계정의 비밀번호가 재설정되었습니다. 이 주소는 이전에 인증된 적이 없으므로, 본인만 로그인할 수 있도록 다른 로그인 방법을 삭제했습니다."],
            action: nil,
            trail: ["계정 설정에서 다시 추가할 수 있습니다. 비밀번호를 재설정하지 않으셨다면 즉시 고객 지원팀에 문의해 주세요."]),
        appAuthorized: MailTemplate(
            subject: "이제 앱이 {app} 계정으로 로그인할 수 있습니다",
            lead: ["{app} 계정으로 로그인하고 공유에 동의한 정보를 볼 수 있도록 다음 앱을 허용했습니다."],
            action: nil,
            trail: ["계정 설정의 앱 항목에서 삭제할 수 있습니다. 본인이 한 일이 아니라면 즉시 비밀번호를 변경하고 앱을 삭제하세요."]),
        signInChange: SignInChangeTexts(
            providerAdded: "{provider} 로그인이 추가되었습니다.",
            providerReplaced: "{provider} 로그인이 다른 {provider} 계정으로 바뀌었습니다.",
            providerRemoved: "{provider} 로그인이 삭제되었습니다.",
            onePasskeyRemoved: "패스키 1개가 삭제되었습니다.",
            passkeysRemoved: "패스키 {count}개가 삭제되었습니다.",
            guestAccessRemoved: "게스트 접속이 삭제되었습니다.",
            twoStepVerificationKept: "2단계 인증은 계속 켜져 있습니다. 직접 설정하지 않으셨다면 고객 지원팀에 문의해 주세요."),
        securityNotices: .korean)
}
