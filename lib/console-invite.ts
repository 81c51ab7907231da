import {
  AdminCreateUserCommand,
  type CognitoIdentityProviderClient,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';
import type { ConsoleRole } from '../functions/domain/console-access.ts';

export interface ConsoleInvitation {
  userPoolId: string;
  account: string;
  email: string;
  role: ConsoleRole;
}

/**
 * Creates a console user in the stack's Cognito user pool (lib/constructs/console-sign-in.ts): signed in by their
 * e-mail address, with the account and role the app client reads (`custom:account`, `custom:role`) and may never
 * write. Cognito e-mails them a temporary password; they choose their own and an authenticator app on first
 * sign-in. The address is marked verified because an operator typed it: the invitation itself goes there.
 */
export async function inviteConsoleUser(
  cognito: CognitoIdentityProviderClient,
  invitation: ConsoleInvitation,
): Promise<{ username: string; status: string }> {
  try {
    const { User } = await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: invitation.userPoolId,
        Username: invitation.email,
        UserAttributes: [
          { Name: 'email', Value: invitation.email },
          { Name: 'email_verified', Value: 'true' },
          { Name: 'custom:account', Value: invitation.account },
          { Name: 'custom:role', Value: invitation.role },
        ],
        DesiredDeliveryMediums: ['EMAIL'],
      }),
    );
    return {
      username: User?.Username ?? invitation.email,
      status: User?.UserStatus ?? 'FORCE_CHANGE_PASSWORD',
    };
  } catch (error) {
    if (error instanceof UsernameExistsException) {
      throw new Error(
        `${invitation.email} is a console user already; their account and role were left as they are.`,
      );
    }
    throw error;
  }
}
