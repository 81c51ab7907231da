import { languageOf, type PageLanguage } from '../domain/locale.ts';

/**
 * Every text of our buyer-facing pages, in each language of `PAGE_LANGUAGES` (docs/checkout.md#languages).
 * One object per language with the same keys, so a missing translation is a type error, not an English gap.
 */
export interface Messages {
  notFoundTitle: string;
  notFoundText: string;
  paidTitle: string;
  paidHeading: string;
  paidText: string;
  expiredTitle: string;
  expiredHeading: string;
  expiredText: string;
  canceledTitle: string;
  canceledHeading: string;
  canceledText: string;
  completedTitle: string;
  completedHeading: string;
  completedText: string;
  requestTitle: string;
  continueToPayment: string;
  notCompletedHeading: string;
  notCompletedText: string;
  tryAgain: string;
  otherProvider: string;
  securePage: string;
  unavailableTitle: string;
  unavailableHeading: string;
  unavailableText: string;
  throttledTitle: string;
  throttledText: string;
  /** A reusable link whose places (`max_payments`) are all taken by payments and other buyers' open sessions. */
  fullTitle: string;
  fullText: string;
  receivedTitle: string;
  receivedText: string;
  thankYou: string;
  confirmingText: string;
  chooseAmountLabel: string;
  amountHint: (minimum: string, maximum: string) => string;
  amountInvalid: (minimum: string, maximum: string) => string;
  /** A chosen amount within the range that no payment provider of the link can take. */
  amountNotPayable: string;
  /**
   * An entry that reads as two amounts (`12.500` with three decimals): both, as amounts, then how to type each so
   * that it reads one way only (functions/domain/amount.ts `parseBuyerDecimal`).
   */
  amountAmbiguous: (
    asDecimal: string,
    asThousands: string,
    typeDecimal: string,
    typeThousands: string,
  ) => string;
  /** Before the title of a page that refused the buyer's answer (screen readers announce the title first). */
  errorPrefix: string;
  item: string;
  quantity: string;
  unitPrice: string;
  total: string;
  includesTax: (rate: string) => string;
  contact: string;
  logoAlt: string;
  errorTitle: string;
  errorText: string;
  providerDownTitle: string;
  providerDownText: string;
  notSetUpTitle: string;
  notSetUpText: string;
  reference: string;
  expiresOn: (date: string) => string;
  /** A passing failure (a 503 with `Retry-After`): the same request may work in a moment. */
  passingTitle: string;
  passingText: string;
  /**
   * The sandbox PSP's page (functions/http/sandbox-views.ts). Its two buttons keep the names the product gives
   * them, **Pay** and **Decline**, in every language (docs/checkout.md#sandbox).
   */
  sandboxTitle: string;
  sandboxNote: string;
  sandboxPay: (amount: string) => string;
  sandboxBack: string;
  sandboxComplete: string;
  sandboxPaid: (amount: string) => string;
  sandboxContinue: string;
  sandboxDeclined: string;
  sandboxDeclinedNotice: string;
  sandboxBackToMerchant: string;
  sandboxExpired: string;
  sandboxStartAgain: string;
  /** A payment under way (a `--simulate processing` connection): it succeeds shortly, seen on a reload. */
  sandboxProcessing: string;
  sandboxProcessingText: (amount: string) => string;
}

const en: Messages = {
  notFoundTitle: 'Payment link not found',
  notFoundText: 'There is no payment link at this address. Check the link you were given.',
  paidTitle: 'Already paid',
  paidHeading: 'This link has already been paid',
  paidText: 'Nothing more to do: the payment was received.',
  expiredTitle: 'Payment link expired',
  expiredHeading: 'This payment link has expired',
  expiredText: 'It can no longer be paid. Ask the merchant for a new link.',
  canceledTitle: 'Payment link canceled',
  canceledHeading: 'This payment link was canceled',
  canceledText: 'The merchant canceled it, so it can no longer be paid.',
  completedTitle: 'Payment link completed',
  completedHeading: 'This payment link takes no more payments',
  completedText: 'It has received all the payments it was made for.',
  requestTitle: 'Payment request',
  continueToPayment: 'Continue to payment',
  notCompletedHeading: 'Payment not completed',
  notCompletedText: 'Your payment did not go through. You can try again.',
  tryAgain: 'Try again',
  otherProvider: 'Pay with another payment provider',
  securePage: 'You pay on the secure page of our payment provider.',
  unavailableTitle: 'Payment providers unavailable',
  unavailableHeading: 'Payment is not available right now',
  unavailableText:
    'Our payment providers did not answer. Nothing was charged, and this link can still be paid.',
  throttledTitle: 'Too many payment attempts',
  throttledText:
    'This link was opened for payment too many times in a short while. Nothing was charged; please try again later.',
  fullTitle: 'No places left for now',
  fullText:
    'Other buyers are paying on this link and it takes no more payments than they can make. Nothing was charged; a place may free up if one of them does not complete their payment, so please try again later.',
  receivedTitle: 'Payment received',
  receivedText: 'Thank you. You can close this page.',
  thankYou: 'Thank you',
  confirmingText: 'Your payment is being confirmed. You can close this page.',
  chooseAmountLabel: 'Amount to pay',
  amountHint: (minimum, maximum) => `Between ${minimum} and ${maximum}.`,
  amountInvalid: (minimum, maximum) => `Enter an amount between ${minimum} and ${maximum}.`,
  amountNotPayable: 'This amount cannot be paid here. Please choose another amount.',
  amountAmbiguous: (asDecimal, asThousands, typeDecimal, typeThousands) =>
    `Did you mean ${asDecimal} or ${asThousands}? To be sure, type ${typeDecimal} or ${typeThousands}.`,
  errorPrefix: 'Error:',
  item: 'Item',
  quantity: 'Quantity',
  unitPrice: 'Price',
  total: 'Total',
  includesTax: (rate) => `incl. ${rate} VAT`,
  contact: 'Questions? Contact',
  logoAlt: 'Merchant logo',
  errorTitle: 'Something went wrong',
  errorText: 'Something went wrong on our side. Please try again later.',
  providerDownTitle: 'Payment provider unavailable',
  providerDownText: 'The payment provider did not answer. Please try again in a moment.',
  notSetUpTitle: 'Payments not available yet',
  notSetUpText:
    'This merchant has not finished setting up payments, so this link cannot be paid yet. Please contact the merchant.',
  reference: 'Reference',
  expiresOn: (date) => `Can be paid until ${date}.`,
  passingTitle: 'Temporarily unavailable',
  passingText: 'We could not complete this just now. Please try again in a moment.',
  sandboxTitle: 'Sandbox checkout',
  sandboxNote: 'Sandbox PSP: test mode, no real money moves.',
  sandboxPay: (amount) => `Pay ${amount}`,
  sandboxBack: 'Back',
  sandboxComplete: 'Payment complete',
  sandboxPaid: (amount) => `${amount} was paid.`,
  sandboxContinue: 'Continue',
  sandboxDeclined: 'Payment declined',
  sandboxDeclinedNotice: 'Payment declined. Nothing was charged.',
  sandboxBackToMerchant: 'Back to the merchant',
  sandboxExpired: 'This checkout session has expired',
  sandboxStartAgain: 'Start again',
  sandboxProcessing: 'Payment processing',
  sandboxProcessingText: (amount) =>
    `The transfer of ${amount} is under way and completes in about 30 seconds. Reload this page to see it.`,
};

const nl: Messages = {
  notFoundTitle: 'Betaallink niet gevonden',
  notFoundText: 'Op dit adres staat geen betaallink. Controleer de link die je hebt gekregen.',
  paidTitle: 'Al betaald',
  paidHeading: 'Deze link is al betaald',
  paidText: 'Je hoeft niets meer te doen: de betaling is ontvangen.',
  expiredTitle: 'Betaallink verlopen',
  expiredHeading: 'Deze betaallink is verlopen',
  expiredText: 'Er kan niet meer mee betaald worden. Vraag de verkoper om een nieuwe link.',
  canceledTitle: 'Betaallink geannuleerd',
  canceledHeading: 'Deze betaallink is geannuleerd',
  canceledText: 'De verkoper heeft hem geannuleerd, dus er kan niet meer mee betaald worden.',
  completedTitle: 'Betaallink voltooid',
  completedHeading: 'Deze betaallink neemt geen betalingen meer aan',
  completedText: 'Hij heeft alle betalingen ontvangen waarvoor hij gemaakt is.',
  requestTitle: 'Betaalverzoek',
  continueToPayment: 'Verder naar betalen',
  notCompletedHeading: 'Betaling niet voltooid',
  notCompletedText: 'Je betaling is niet gelukt. Je kunt het opnieuw proberen.',
  tryAgain: 'Opnieuw proberen',
  otherProvider: 'Betalen via een andere betaalprovider',
  securePage: 'Je betaalt op de beveiligde pagina van onze betaalprovider.',
  unavailableTitle: 'Betaalproviders niet beschikbaar',
  unavailableHeading: 'Betalen is nu niet mogelijk',
  unavailableText:
    'Onze betaalproviders gaven geen antwoord. Er is niets afgeschreven en deze link kan nog steeds betaald worden.',
  throttledTitle: 'Te veel betaalpogingen',
  throttledText:
    'Deze link is in korte tijd te vaak geopend om te betalen. Er is niets afgeschreven; probeer het later opnieuw.',
  fullTitle: 'Voorlopig geen plaatsen meer',
  fullText:
    'Andere kopers betalen via deze link en hij neemt niet meer betalingen aan dan zij kunnen doen. Er is niets afgeschreven; er kan een plaats vrijkomen als een van hen de betaling niet afrondt, dus probeer het later opnieuw.',
  receivedTitle: 'Betaling ontvangen',
  receivedText: 'Bedankt. Je kunt deze pagina sluiten.',
  thankYou: 'Bedankt',
  confirmingText: 'Je betaling wordt bevestigd. Je kunt deze pagina sluiten.',
  chooseAmountLabel: 'Te betalen bedrag',
  amountHint: (minimum, maximum) => `Tussen ${minimum} en ${maximum}.`,
  amountInvalid: (minimum, maximum) => `Vul een bedrag in tussen ${minimum} en ${maximum}.`,
  amountNotPayable: 'Dit bedrag kan hier niet betaald worden. Kies een ander bedrag.',
  amountAmbiguous: (asDecimal, asThousands, typeDecimal, typeThousands) =>
    `Bedoel je ${asDecimal} of ${asThousands}? Typ voor de zekerheid ${typeDecimal} of ${typeThousands}.`,
  errorPrefix: 'Fout:',
  item: 'Artikel',
  quantity: 'Aantal',
  unitPrice: 'Prijs',
  total: 'Totaal',
  includesTax: (rate) => `incl. ${rate} btw`,
  contact: 'Vragen? Neem contact op via',
  logoAlt: 'Logo van de verkoper',
  errorTitle: 'Er ging iets mis',
  errorText: 'Er ging bij ons iets mis. Probeer het later opnieuw.',
  providerDownTitle: 'Betaalprovider niet beschikbaar',
  providerDownText: 'De betaalprovider gaf geen antwoord. Probeer het zo opnieuw.',
  notSetUpTitle: 'Betalen nog niet mogelijk',
  notSetUpText:
    'Deze verkoper heeft betalingen nog niet ingesteld, dus deze link kan nog niet betaald worden. Neem contact op met de verkoper.',
  reference: 'Referentie',
  expiresOn: (date) => `Te betalen tot ${date}.`,
  passingTitle: 'Tijdelijk niet beschikbaar',
  passingText: 'Dit lukte nu even niet. Probeer het zo opnieuw.',
  sandboxTitle: 'Sandbox-betaalpagina',
  sandboxNote: 'Sandbox-betaalprovider: testmodus, er wordt geen echt geld overgemaakt.',
  sandboxPay: (amount) => `${amount} betalen`,
  sandboxBack: 'Terug',
  sandboxComplete: 'Betaling voltooid',
  sandboxPaid: (amount) => `${amount} is betaald.`,
  sandboxContinue: 'Doorgaan',
  sandboxDeclined: 'Betaling geweigerd',
  sandboxDeclinedNotice: 'Betaling geweigerd. Er is niets afgeschreven.',
  sandboxBackToMerchant: 'Terug naar de verkoper',
  sandboxExpired: 'Deze betaalsessie is verlopen',
  sandboxStartAgain: 'Opnieuw beginnen',
  sandboxProcessing: 'Betaling wordt verwerkt',
  sandboxProcessingText: (amount) =>
    `De overboeking van ${amount} is onderweg en is over ongeveer 30 seconden voltooid. Laad deze pagina opnieuw om het te zien.`,
};

const de: Messages = {
  notFoundTitle: 'Zahlungslink nicht gefunden',
  notFoundText:
    'Unter dieser Adresse gibt es keinen Zahlungslink. Prüfen Sie den Link, den Sie erhalten haben.',
  paidTitle: 'Bereits bezahlt',
  paidHeading: 'Dieser Link wurde bereits bezahlt',
  paidText: 'Sie müssen nichts mehr tun: Die Zahlung ist eingegangen.',
  expiredTitle: 'Zahlungslink abgelaufen',
  expiredHeading: 'Dieser Zahlungslink ist abgelaufen',
  expiredText: 'Er kann nicht mehr bezahlt werden. Bitten Sie den Händler um einen neuen Link.',
  canceledTitle: 'Zahlungslink storniert',
  canceledHeading: 'Dieser Zahlungslink wurde storniert',
  canceledText: 'Der Händler hat ihn storniert, daher kann er nicht mehr bezahlt werden.',
  completedTitle: 'Zahlungslink abgeschlossen',
  completedHeading: 'Dieser Zahlungslink nimmt keine Zahlungen mehr an',
  completedText: 'Er hat alle Zahlungen erhalten, für die er erstellt wurde.',
  requestTitle: 'Zahlungsanforderung',
  continueToPayment: 'Weiter zur Zahlung',
  notCompletedHeading: 'Zahlung nicht abgeschlossen',
  notCompletedText: 'Ihre Zahlung ist nicht durchgegangen. Sie können es erneut versuchen.',
  tryAgain: 'Erneut versuchen',
  otherProvider: 'Mit einem anderen Zahlungsanbieter bezahlen',
  securePage: 'Sie bezahlen auf der sicheren Seite unseres Zahlungsanbieters.',
  unavailableTitle: 'Zahlungsanbieter nicht erreichbar',
  unavailableHeading: 'Bezahlen ist gerade nicht möglich',
  unavailableText:
    'Unsere Zahlungsanbieter haben nicht geantwortet. Es wurde nichts belastet, und dieser Link kann weiterhin bezahlt werden.',
  throttledTitle: 'Zu viele Zahlungsversuche',
  throttledText:
    'Dieser Link wurde in kurzer Zeit zu oft zum Bezahlen geöffnet. Es wurde nichts belastet; bitte versuchen Sie es später erneut.',
  fullTitle: 'Vorerst keine Plätze frei',
  fullText:
    'Andere Käufer bezahlen über diesen Link, und er nimmt nicht mehr Zahlungen an, als sie leisten können. Es wurde nichts belastet; ein Platz kann frei werden, wenn einer von ihnen die Zahlung nicht abschließt. Bitte versuchen Sie es später erneut.',
  receivedTitle: 'Zahlung erhalten',
  receivedText: 'Vielen Dank. Sie können diese Seite schließen.',
  thankYou: 'Vielen Dank',
  confirmingText: 'Ihre Zahlung wird bestätigt. Sie können diese Seite schließen.',
  chooseAmountLabel: 'Zu zahlender Betrag',
  amountHint: (minimum, maximum) => `Zwischen ${minimum} und ${maximum}.`,
  amountInvalid: (minimum, maximum) => `Geben Sie einen Betrag zwischen ${minimum} und ${maximum} ein.`,
  amountNotPayable: 'Dieser Betrag kann hier nicht bezahlt werden. Bitte wählen Sie einen anderen Betrag.',
  amountAmbiguous: (asDecimal, asThousands, typeDecimal, typeThousands) =>
    `Meinen Sie ${asDecimal} oder ${asThousands}? Geben Sie zur Sicherheit ${typeDecimal} oder ${typeThousands} ein.`,
  errorPrefix: 'Fehler:',
  item: 'Artikel',
  quantity: 'Menge',
  unitPrice: 'Preis',
  total: 'Gesamt',
  includesTax: (rate) => `inkl. ${rate} MwSt.`,
  contact: 'Fragen? Kontakt',
  logoAlt: 'Logo des Händlers',
  errorTitle: 'Etwas ist schiefgelaufen',
  errorText: 'Bei uns ist etwas schiefgelaufen. Bitte versuchen Sie es später erneut.',
  providerDownTitle: 'Zahlungsanbieter nicht erreichbar',
  providerDownText: 'Der Zahlungsanbieter hat nicht geantwortet. Bitte versuchen Sie es gleich noch einmal.',
  notSetUpTitle: 'Zahlungen noch nicht möglich',
  notSetUpText:
    'Dieser Händler hat Zahlungen noch nicht eingerichtet, daher kann dieser Link noch nicht bezahlt werden. Bitte wenden Sie sich an den Händler.',
  reference: 'Referenz',
  expiresOn: (date) => `Zahlbar bis ${date}.`,
  passingTitle: 'Vorübergehend nicht verfügbar',
  passingText: 'Das hat gerade nicht geklappt. Bitte versuchen Sie es gleich noch einmal.',
  sandboxTitle: 'Sandbox-Zahlungsseite',
  sandboxNote: 'Sandbox-Zahlungsanbieter: Testmodus, es wird kein echtes Geld bewegt.',
  sandboxPay: (amount) => `${amount} bezahlen`,
  sandboxBack: 'Zurück',
  sandboxComplete: 'Zahlung abgeschlossen',
  sandboxPaid: (amount) => `${amount} wurden bezahlt.`,
  sandboxContinue: 'Weiter',
  sandboxDeclined: 'Zahlung abgelehnt',
  sandboxDeclinedNotice: 'Zahlung abgelehnt. Es wurde nichts belastet.',
  sandboxBackToMerchant: 'Zurück zum Händler',
  sandboxExpired: 'Diese Zahlungssitzung ist abgelaufen',
  sandboxStartAgain: 'Neu beginnen',
  sandboxProcessing: 'Zahlung in Bearbeitung',
  sandboxProcessingText: (amount) =>
    `Die Überweisung von ${amount} läuft und ist in etwa 30 Sekunden abgeschlossen. Laden Sie diese Seite neu, um es zu sehen.`,
};

const fr: Messages = {
  notFoundTitle: 'Lien de paiement introuvable',
  notFoundText: "Il n'y a pas de lien de paiement à cette adresse. Vérifiez le lien que vous avez reçu.",
  paidTitle: 'Déjà payé',
  paidHeading: 'Ce lien a déjà été payé',
  paidText: 'Plus rien à faire : le paiement a été reçu.',
  expiredTitle: 'Lien de paiement expiré',
  expiredHeading: 'Ce lien de paiement a expiré',
  expiredText: 'Il ne peut plus être payé. Demandez un nouveau lien au marchand.',
  canceledTitle: 'Lien de paiement annulé',
  canceledHeading: 'Ce lien de paiement a été annulé',
  canceledText: "Le marchand l'a annulé, il ne peut donc plus être payé.",
  completedTitle: 'Lien de paiement terminé',
  completedHeading: "Ce lien de paiement n'accepte plus de paiements",
  completedText: 'Il a reçu tous les paiements pour lesquels il a été créé.',
  requestTitle: 'Demande de paiement',
  continueToPayment: 'Continuer vers le paiement',
  notCompletedHeading: 'Paiement non abouti',
  notCompletedText: "Votre paiement n'a pas abouti. Vous pouvez réessayer.",
  tryAgain: 'Réessayer',
  otherProvider: 'Payer avec un autre prestataire de paiement',
  securePage: 'Vous payez sur la page sécurisée de notre prestataire de paiement.',
  unavailableTitle: 'Prestataires de paiement indisponibles',
  unavailableHeading: "Le paiement n'est pas disponible pour le moment",
  unavailableText:
    "Nos prestataires de paiement n'ont pas répondu. Rien n'a été débité et ce lien peut toujours être payé.",
  throttledTitle: 'Trop de tentatives de paiement',
  throttledText:
    "Ce lien a été ouvert trop souvent pour payer en peu de temps. Rien n'a été débité ; veuillez réessayer plus tard.",
  fullTitle: 'Plus de places pour le moment',
  fullText:
    "D'autres acheteurs paient avec ce lien, et il n'accepte pas plus de paiements que les leurs. Rien n'a été débité ; une place peut se libérer si l'un d'eux ne termine pas son paiement, veuillez donc réessayer plus tard.",
  receivedTitle: 'Paiement reçu',
  receivedText: 'Merci. Vous pouvez fermer cette page.',
  thankYou: 'Merci',
  confirmingText: 'Votre paiement est en cours de confirmation. Vous pouvez fermer cette page.',
  chooseAmountLabel: 'Montant à payer',
  amountHint: (minimum, maximum) => `Entre ${minimum} et ${maximum}.`,
  amountInvalid: (minimum, maximum) => `Saisissez un montant entre ${minimum} et ${maximum}.`,
  amountNotPayable: 'Ce montant ne peut pas être payé ici. Veuillez choisir un autre montant.',
  amountAmbiguous: (asDecimal, asThousands, typeDecimal, typeThousands) =>
    `Vouliez-vous dire ${asDecimal} ou ${asThousands} ? Pour lever le doute, saisissez ${typeDecimal} ou ${typeThousands}.`,
  errorPrefix: 'Erreur :',
  item: 'Article',
  quantity: 'Quantité',
  unitPrice: 'Prix',
  total: 'Total',
  includesTax: (rate) => `dont TVA ${rate}`,
  contact: 'Des questions ? Contactez',
  logoAlt: 'Logo du marchand',
  errorTitle: "Une erreur s'est produite",
  errorText: "Une erreur s'est produite de notre côté. Veuillez réessayer plus tard.",
  providerDownTitle: 'Prestataire de paiement indisponible',
  providerDownText: "Le prestataire de paiement n'a pas répondu. Veuillez réessayer dans un instant.",
  notSetUpTitle: 'Paiements pas encore disponibles',
  notSetUpText:
    "Ce marchand n'a pas fini de configurer les paiements, ce lien ne peut donc pas encore être payé. Veuillez contacter le marchand.",
  reference: 'Référence',
  expiresOn: (date) => `Payable jusqu'au ${date}.`,
  passingTitle: 'Temporairement indisponible',
  passingText: "Cela n'a pas abouti pour le moment. Veuillez réessayer dans un instant.",
  sandboxTitle: 'Paiement sandbox',
  sandboxNote: "Prestataire sandbox : mode test, aucun argent réel n'est déplacé.",
  sandboxPay: (amount) => `Payer ${amount}`,
  sandboxBack: 'Retour',
  sandboxComplete: 'Paiement effectué',
  sandboxPaid: (amount) => `${amount} a été payé.`,
  sandboxContinue: 'Continuer',
  sandboxDeclined: 'Paiement refusé',
  sandboxDeclinedNotice: "Paiement refusé. Rien n'a été débité.",
  sandboxBackToMerchant: 'Retour au marchand',
  sandboxExpired: 'Cette session de paiement a expiré',
  sandboxStartAgain: 'Recommencer',
  sandboxProcessing: 'Paiement en cours',
  sandboxProcessingText: (amount) =>
    `Le virement de ${amount} est en cours et sera terminé dans environ 30 secondes. Rechargez cette page pour le voir.`,
};

const es: Messages = {
  notFoundTitle: 'Enlace de pago no encontrado',
  notFoundText: 'No hay ningún enlace de pago en esta dirección. Comprueba el enlace que recibiste.',
  paidTitle: 'Ya pagado',
  paidHeading: 'Este enlace ya se ha pagado',
  paidText: 'No tienes que hacer nada más: el pago se ha recibido.',
  expiredTitle: 'Enlace de pago caducado',
  expiredHeading: 'Este enlace de pago ha caducado',
  expiredText: 'Ya no se puede pagar. Pide un nuevo enlace al comercio.',
  canceledTitle: 'Enlace de pago cancelado',
  canceledHeading: 'Este enlace de pago se ha cancelado',
  canceledText: 'El comercio lo ha cancelado, así que ya no se puede pagar.',
  completedTitle: 'Enlace de pago completado',
  completedHeading: 'Este enlace de pago ya no admite pagos',
  completedText: 'Ha recibido todos los pagos para los que se creó.',
  requestTitle: 'Solicitud de pago',
  continueToPayment: 'Continuar al pago',
  notCompletedHeading: 'Pago no completado',
  notCompletedText: 'Tu pago no se ha realizado. Puedes volver a intentarlo.',
  tryAgain: 'Volver a intentarlo',
  otherProvider: 'Pagar con otro proveedor de pagos',
  securePage: 'Pagas en la página segura de nuestro proveedor de pagos.',
  unavailableTitle: 'Proveedores de pago no disponibles',
  unavailableHeading: 'El pago no está disponible ahora mismo',
  unavailableText:
    'Nuestros proveedores de pago no han respondido. No se ha cobrado nada y este enlace todavía se puede pagar.',
  throttledTitle: 'Demasiados intentos de pago',
  throttledText:
    'Este enlace se ha abierto para pagar demasiadas veces en poco tiempo. No se ha cobrado nada; inténtalo de nuevo más tarde.',
  fullTitle: 'No quedan plazas por ahora',
  fullText:
    'Otros compradores están pagando con este enlace y no admite más pagos que los suyos. No se ha cobrado nada; puede quedar una plaza libre si alguno de ellos no completa su pago, así que inténtalo de nuevo más tarde.',
  receivedTitle: 'Pago recibido',
  receivedText: 'Gracias. Puedes cerrar esta página.',
  thankYou: 'Gracias',
  confirmingText: 'Tu pago se está confirmando. Puedes cerrar esta página.',
  chooseAmountLabel: 'Importe a pagar',
  amountHint: (minimum, maximum) => `Entre ${minimum} y ${maximum}.`,
  amountInvalid: (minimum, maximum) => `Introduce un importe entre ${minimum} y ${maximum}.`,
  amountNotPayable: 'Este importe no se puede pagar aquí. Elige otro importe.',
  amountAmbiguous: (asDecimal, asThousands, typeDecimal, typeThousands) =>
    `¿Querías decir ${asDecimal} o ${asThousands}? Para evitar dudas, escribe ${typeDecimal} o ${typeThousands}.`,
  errorPrefix: 'Error:',
  item: 'Artículo',
  quantity: 'Cantidad',
  unitPrice: 'Precio',
  total: 'Total',
  includesTax: (rate) => `IVA ${rate} incl.`,
  contact: '¿Preguntas? Contacta con',
  logoAlt: 'Logotipo del comercio',
  errorTitle: 'Algo ha ido mal',
  errorText: 'Algo ha ido mal por nuestra parte. Inténtalo de nuevo más tarde.',
  providerDownTitle: 'Proveedor de pagos no disponible',
  providerDownText: 'El proveedor de pagos no ha respondido. Inténtalo de nuevo en un momento.',
  notSetUpTitle: 'Pagos aún no disponibles',
  notSetUpText:
    'Este comercio aún no ha terminado de configurar los pagos, así que este enlace todavía no se puede pagar. Contacta con el comercio.',
  reference: 'Referencia',
  expiresOn: (date) => `Se puede pagar hasta el ${date}.`,
  passingTitle: 'No disponible temporalmente',
  passingText: 'No se ha podido completar ahora mismo. Inténtalo de nuevo en un momento.',
  sandboxTitle: 'Pago de prueba (sandbox)',
  sandboxNote: 'Proveedor sandbox: modo de prueba, no se mueve dinero real.',
  sandboxPay: (amount) => `Pagar ${amount}`,
  sandboxBack: 'Volver',
  sandboxComplete: 'Pago completado',
  sandboxPaid: (amount) => `Se han pagado ${amount}.`,
  sandboxContinue: 'Continuar',
  sandboxDeclined: 'Pago rechazado',
  sandboxDeclinedNotice: 'Pago rechazado. No se ha cobrado nada.',
  sandboxBackToMerchant: 'Volver al comercio',
  sandboxExpired: 'Esta sesión de pago ha caducado',
  sandboxStartAgain: 'Empezar de nuevo',
  sandboxProcessing: 'Pago en curso',
  sandboxProcessingText: (amount) =>
    `La transferencia de ${amount} está en curso y se completará en unos 30 segundos. Recargue esta página para verlo.`,
};

const MESSAGES: Record<PageLanguage, Messages> = { en, nl, de, fr, es };

/** The texts for a locale tag (`nl-BE` speaks `nl`); English for anything we do not speak. */
export const messagesFor = (locale: string): Messages => MESSAGES[languageOf(locale)];
