import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';

let fetchMock: FetchMock;

function setup(state: MockRoute, extra: Record<string, MockRoute> = {}, path = '/appeal') {
  fetchMock = mockFetch({ 'GET /api/config': { body: { dataRetentionDays: 30 } }, 'GET /api/appeal': state, ...extra });
  renderApp(path);
}
afterEach(() => fetchMock.restore());

const denied = { username: 'flagged', standing: 'certain_alt', canAppeal: true, appeal: null };

describe('appeal page', () => {
  it('offers a Discord sign-in when the session does not identify the visitor', async () => {
    setup({ status: 401, body: { error: 'Sign in with Discord again to ask staff for a review' } }, {}, '/appeal?signIn=failed');
    expect(await screen.findByRole('button', { name: 'Sign in with Discord again' })).toBeInTheDocument();
    expect(screen.getByText('Discord did not confirm your account. Please try again.')).toBeInTheDocument();
  });

  it('refuses bad text in the page and sends nothing', async () => {
    setup({ body: denied });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Ask staff to review' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The message cannot be empty');
    await user.type(screen.getByLabelText('Tell staff why this should be reviewed'), 'hello <b>staff</b>');
    await user.click(screen.getByRole('button', { name: 'Ask staff to review' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The message must be plain text, without HTML');
    expect(fetchMock.callsTo('POST', '/api/appeal')).toHaveLength(0);
  });

  it('sends the trimmed message, then shows the request as waiting', async () => {
    let filed = false;
    setup(
      () => ({
        body: filed
          ? {
              ...denied,
              canAppeal: false,
              appeal: { status: 'open', message: 'It is me', createdAt: new Date().toISOString(), decidedAt: null, reason: null },
            }
          : denied,
      }),
      {
        'POST /api/appeal': () => {
          filed = true;
          return { status: 201, body: { success: true } };
        },
      },
    );
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Tell staff why this should be reviewed'), '  It is me  ');
    await user.click(screen.getByRole('button', { name: 'Ask staff to review' }));
    expect(await screen.findByText('Your request is waiting for staff')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/appeal')[0]!.body).toEqual({ message: 'It is me' });
    expect(screen.queryByLabelText('Tell staff why this should be reviewed')).not.toBeInTheDocument();
  });

  it("shows the server's refusal", async () => {
    setup(
      { body: denied },
      { 'POST /api/appeal': { status: 409, body: { error: 'You already have an open appeal: staff will review it' } } },
    );
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Tell staff why this should be reviewed'), 'again');
    await user.click(screen.getByRole('button', { name: 'Ask staff to review' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('You already have an open appeal: staff will review it'));
  });

  it('shows an approval, with the way back in for a member the denial removed from the server', async () => {
    setup({
      body: {
        ...denied,
        standing: 'verified',
        canAppeal: false,
        appeal: {
          status: 'approved',
          message: 'x',
          createdAt: new Date().toISOString(),
          decidedAt: new Date().toISOString(),
          reason: null,
        },
      },
    });
    expect(await screen.findByText('Staff approved your request')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Verify again' })).toHaveAttribute('href', '/');
  });

  it("shows a rejection with the staff's reason as text", async () => {
    setup({
      body: {
        ...denied,
        standing: 'limited',
        appeal: {
          status: 'rejected',
          message: 'x',
          createdAt: new Date().toISOString(),
          decidedAt: new Date().toISOString(),
          reason: '<b>Known VPN</b>',
        },
      },
    });
    expect(await screen.findByText('Staff reviewed your request and kept the decision')).toBeInTheDocument();
    expect(screen.getByText('<b>Known VPN</b>')).toBeInTheDocument();
    expect(screen.getByLabelText('Send a new request to staff')).toBeInTheDocument();
  });
});
