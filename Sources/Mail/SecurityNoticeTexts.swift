/// One language's security notices (``MailKind/isSecurityNotice``): what happened, then when and
/// from where (``NoticeOccurrence``), then what to do if it was not the user. What to do is the
/// reset flow of the app's sign-in page, never a link that changes anything by being opened.
struct SecurityNoticeTexts {
    let newDeviceSignIn, twoStepEnabled, twoStepDisabled, recoveryCodeUsed, passkeyAdded, passkeyRemoved, accountDisabled:
        MailTemplate
    /// `{time}`: ``NoticeOccurrence/formattedTime``.
    let when: String
    /// `{address}` and `{device}` (the User-Agent, or ``unknownDevice``).
    let from: String
    let unknownAddress, unknownDevice: String

    subscript(kind: MailKind) -> MailTemplate? {
        switch kind {
        case .newDeviceSignIn: newDeviceSignIn
        case .twoStepEnabled: twoStepEnabled
        case .twoStepDisabled: twoStepDisabled
        case .recoveryCodeUsed: recoveryCodeUsed
        case .passkeyAdded: passkeyAdded
        case .passkeyRemoved: passkeyRemoved
        case .accountDisabled: accountDisabled
        default: nil
        }
    }

    /// The values of ``when`` and ``from``'s placeholders for `occurrence`.
    func values(_ occurrence: NoticeOccurrence) -> [String: String] {
        ["time": occurrence.formattedTime, "address": occurrence.address ?? unknownAddress,
         "device": occurrence.device ?? unknownDevice]
    }

    /// A notice: `lead`, then (in the composer) when and from where, then `trail`.
    private static func notice(_ subject: String, _ lead: String, _ trail: String) -> MailTemplate {
        MailTemplate(subject: subject, lead: [lead], action: nil, trail: [trail])
    }

    static let english: SecurityNoticeTexts = {
        let notYou = "If this was not you, reset your password right away with \"Forgot password\" on the sign-in page, check the ways to sign in in your account settings and contact support."
        return SecurityNoticeTexts(
            newDeviceSignIn: notice("New sign-in to your {app} account", "Your {app} account was just signed in to from a device or network it had not used recently.", notYou),
            twoStepEnabled: notice("Two-step verification was turned on for {app}", "Two-step verification was turned on for your {app} account.", notYou),
            twoStepDisabled: notice("Two-step verification was turned off for {app}", "Two-step verification was turned off for your {app} account. Signing in now needs only your password.", notYou),
            recoveryCodeUsed: notice("A recovery code was used for {app}", "A recovery code was used to sign in to your {app} account. Each code works once.", notYou),
            passkeyAdded: notice("A passkey was added to your {app} account", "A passkey was added to your {app} account. It can be used to sign in.", notYou),
            passkeyRemoved: notice("A passkey was removed from your {app} account", "A passkey was removed from your {app} account.", notYou),
            accountDisabled: notice("Your {app} account was disabled", "Your {app} account was disabled by its operators: it cannot be signed in to, and every device was signed out.", "If you think this is a mistake, contact support."),
            when: "When: {time}", from: "From: {address}, {device}", unknownAddress: "an unknown address", unknownDevice: "an unknown device")
    }()

    static let spanish: SecurityNoticeTexts = {
        let notYou = "Si no has sido tú, restablece tu contraseña enseguida con «He olvidado mi contraseña» en la página de inicio de sesión, revisa las formas de iniciar sesión en los ajustes de tu cuenta y ponte en contacto con el soporte."
        return SecurityNoticeTexts(
            newDeviceSignIn: notice("Nuevo inicio de sesión en tu cuenta de {app}", "Se acaba de iniciar sesión en tu cuenta de {app} desde un dispositivo o una red que no se había usado recientemente.", notYou),
            twoStepEnabled: notice("Se ha activado la verificación en dos pasos en {app}", "Se ha activado la verificación en dos pasos en tu cuenta de {app}.", notYou),
            twoStepDisabled: notice("Se ha desactivado la verificación en dos pasos en {app}", "Se ha desactivado la verificación en dos pasos en tu cuenta de {app}. Ahora basta con tu contraseña para iniciar sesión.", notYou),
            recoveryCodeUsed: notice("Se ha usado un código de recuperación en {app}", "Se ha usado un código de recuperación para iniciar sesión en tu cuenta de {app}. Cada código funciona una sola vez.", notYou),
            passkeyAdded: notice("Se ha añadido una llave de acceso a tu cuenta de {app}", "Se ha añadido una llave de acceso a tu cuenta de {app}. Sirve para iniciar sesión.", notYou),
            passkeyRemoved: notice("Se ha quitado una llave de acceso de tu cuenta de {app}", "Se ha quitado una llave de acceso de tu cuenta de {app}.", notYou),
            accountDisabled: notice("Se ha desactivado tu cuenta de {app}", "Los responsables de {app} han desactivado tu cuenta: no se puede iniciar sesión en ella y se ha cerrado la sesión en todos los dispositivos.", "Si crees que es un error, ponte en contacto con el soporte."),
            when: "Cuándo: {time}", from: "Desde: {address}, {device}", unknownAddress: "una dirección desconocida", unknownDevice: "un dispositivo desconocido")
    }()

    static let french: SecurityNoticeTexts = {
        let notYou = "Si ce n'est pas vous, réinitialisez votre mot de passe immédiatement avec « Mot de passe oublié » sur la page de connexion, vérifiez vos moyens de connexion dans les paramètres de votre compte et contactez le support."
        return SecurityNoticeTexts(
            newDeviceSignIn: notice("Nouvelle connexion à votre compte {app}", "Une connexion à votre compte {app} vient d'avoir lieu depuis un appareil ou un réseau qu'il n'avait pas utilisé récemment.", notYou),
            twoStepEnabled: notice("La validation en deux étapes a été activée sur {app}", "La validation en deux étapes a été activée sur votre compte {app}.", notYou),
            twoStepDisabled: notice("La validation en deux étapes a été désactivée sur {app}", "La validation en deux étapes a été désactivée sur votre compte {app}. Votre mot de passe suffit désormais pour vous connecter.", notYou),
            recoveryCodeUsed: notice("Un code de secours a été utilisé sur {app}", "Un code de secours a été utilisé pour vous connecter à votre compte {app}. Chaque code ne sert qu'une fois.", notYou),
            passkeyAdded: notice("Une clé d'accès a été ajoutée à votre compte {app}", "Une clé d'accès a été ajoutée à votre compte {app}. Elle permet de vous connecter.", notYou),
            passkeyRemoved: notice("Une clé d'accès a été retirée de votre compte {app}", "Une clé d'accès a été retirée de votre compte {app}.", notYou),
            accountDisabled: notice("Votre compte {app} a été désactivé", "Votre compte {app} a été désactivé par ses responsables : plus aucune connexion n'est possible et tous les appareils ont été déconnectés.", "Si vous pensez qu'il s'agit d'une erreur, contactez le support."),
            when: "Quand : {time}", from: "Depuis : {address}, {device}", unknownAddress: "une adresse inconnue", unknownDevice: "un appareil inconnu")
    }()

    static let korean: SecurityNoticeTexts = {
        let notYou = "본인이 아니라면 로그인 화면의 \"비밀번호 찾기\"로 즉시 비밀번호를 재설정하고, 계정 설정에서 로그인 방법을 확인한 뒤 고객 지원팀에 문의해 주세요."
        return SecurityNoticeTexts(
            newDeviceSignIn: notice("{app} 계정에 새로운 로그인이 있었습니다", "최근에 사용하지 않은 기기 또는 네트워크에서 {app} 계정에 방금 로그인했습니다.", notYou),
            twoStepEnabled: notice("{app} 2단계 인증이 켜졌습니다", "{app} 계정의 2단계 인증이 켜졌습니다.", notYou),
            twoStepDisabled: notice("{app} 2단계 인증이 꺼졌습니다", "{app} 계정의 2단계 인증이 꺼졌습니다. 이제 비밀번호만으로 로그인할 수 있습니다.", notYou),
            recoveryCodeUsed: notice("{app} 복구 코드가 사용되었습니다", "{app} 계정에 로그인하는 데 복구 코드가 사용되었습니다. 각 코드는 한 번만 쓸 수 있습니다.", notYou),
            passkeyAdded: notice("{app} 계정에 패스키가 추가되었습니다", "{app} 계정에 패스키가 추가되었습니다. 이 패스키로 로그인할 수 있습니다.", notYou),
            passkeyRemoved: notice("{app} 계정에서 패스키가 삭제되었습니다", "{app} 계정에서 패스키가 삭제되었습니다.", notYou),
            accountDisabled: notice("{app} 계정이 비활성화되었습니다", "{app} 운영자가 계정을 비활성화했습니다. 더 이상 로그인할 수 없으며 모든 기기에서 로그아웃되었습니다.", "잘못된 조치라고 생각되면 고객 지원팀에 문의해 주세요."),
            when: "일시: {time}", from: "접속 위치: {address}, {device}", unknownAddress: "알 수 없는 주소", unknownDevice: "알 수 없는 기기")
    }()
}
