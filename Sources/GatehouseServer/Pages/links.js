// The pages behind the links in mail, /verify-email and /reset-password (link.html): the verify
// page confirms by itself, the reset page posts the new password. Served after prelude.js.
(() => {
  const main = document.querySelector("main");
  const page = main.dataset.page;

  function show(id) {
    for (const section of document.querySelectorAll("main > section")) section.hidden = section.id !== id;
  }

  function showError(id, error) {
    const element = $(id);
    if (error) { element.textContent = explain(error); element.hidden = false; }
    else { element.textContent = ""; element.hidden = true; }
  }

  async function run(button, errorId, action) {
    showError(errorId, null);
    button.disabled = true;
    try { await action(); } catch (error) { showError(errorId, error); } finally { button.disabled = false; }
  }

  function showInvalid(titleKey, leadKey) {
    $("invalid-title").textContent = words(titleKey);
    $("invalid-lead").textContent = words(leadKey);
    show("link-invalid");
  }

  if (page === "verify") {
    const form = $("verify-form");
    const verify = () => run($("verify-submit"), "verify-error", async () => {
      $("verify-working").hidden = false;
      form.hidden = true;
      try {
        await graphQL("mutation VerifyEmail($input: VerifyEmailInput!) { verifyEmail(input: $input) { ok } }",
          { input: { username: form.elements.username.value, token: form.elements.token.value } });
        show("link-done");
      } catch (error) {
        if (error.code !== -1) throw error;
        show("link-invalid");
      } finally {
        $("verify-working").hidden = true;
        form.hidden = false;
      }
    });
    form.addEventListener("submit", (event) => { event.preventDefault(); verify(); });
    // Only the link's own page confirms by itself; an answer to the posted form already has.
    if (main.dataset.state === "link") verify();
  } else {
    $("reset-form").addEventListener("submit", (event) => {
      event.preventDefault();
      run($("reset-submit"), "reset-error", async () => {
        const password = $("reset-password").value;
        if (!password) throw { text: words("reset.empty") };
        if (password !== $("reset-repeat").value) throw { text: words("reset.mismatch") };
        try {
          await graphQL("mutation ConfirmResetPassword($input: ConfirmResetPasswordInput!) { confirmResetPassword(input: $input) { ok } }",
            { input: { username: $("reset-username").value, password, token: $("reset-token").value } });
        } catch (error) {
          if (error.code !== -1) throw error;
          if (error.message === "The password reset link has expired") showInvalid("reset.expired.title", "reset.expired.lead");
          else showInvalid("reset.invalid.title", "reset.invalid.lead");
          return;
        }
        $("reset-form").reset();
        show("link-done");
      });
    });
  }

  $("resend-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run($("resend-submit"), "resend-error", async () => {
      $("resend-sent").hidden = true;
      const input = { email: $("resend-email").value.trim() };
      if (page === "verify") {
        await graphQL("mutation SendVerificationEmail($input: SendVerificationEmailInput!) { sendVerificationEmail(input: $input) { ok } }", { input });
      } else {
        await graphQL("mutation ResetPassword($input: ResetPasswordInput!) { resetPassword(input: $input) { ok } }", { input });
      }
      $("resend-sent").hidden = false;
    });
  });
  document.body.dataset.ready = "true";
})();
